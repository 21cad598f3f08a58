// Exact match, accuracy maps with chance levels, and Max T (see evaluation.h).
#include "core/squaring/evaluation.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/squaring/modular_arithmetic.h"

namespace deepladder::squaring {

bool exactMatch(const std::vector<int32_t>& predicted, const std::vector<int32_t>& gold) {
  return predicted == gold;
}

bool exactMatch(const std::vector<int32_t>& predicted, const Example& example) {
  return exactMatch(predicted, answerTokens(example.z));
}

bool exactMatchSeparateRow(const int32_t* predicted_row, int64_t seq_len, const Example& example) {
  int32_t answer[20];
  const int len = writeDigitTokens(example.z, answer);
  if (len > seq_len) return false;
  return std::equal(answer, answer + len, predicted_row + (seq_len - len));
}

bool exactMatchCausalRow(const int32_t* predicted_row, int64_t seq_len, const Example& example) {
  int32_t prompt[64], answer[20];
  const int prompt_len = writePromptTokens(example.n, example.x, example.t, prompt);
  const int len = writeDigitTokens(example.z, answer);
  // Inputs are BOS prompt ANS answer...; the prediction at the ANS position (index
  // prompt_len + 1) is the first answer digit.
  const int64_t first = prompt_len + 1;
  if (first + len > seq_len) return false;
  return std::equal(answer, answer + len, predicted_row + first);
}

const char* cellKindName(CellKind kind) {
  switch (kind) {
    case CellKind::kInDistribution:
      return "in";
    case CellKind::kOodT:
      return "ood_t";
    case CellKind::kOodN:
      return "ood_n";
    case CellKind::kOodBoth:
      return "ood_both";
  }
  return "?";
}

AccuracyMap::AccuracyMap(std::vector<int> seen_bits, std::vector<int64_t> seen_t)
    : seen_bits_(std::move(seen_bits)), seen_t_(std::move(seen_t)) {}

AccuracyMap::AccuracyMap(const TierPreset& tier) : AccuracyMap(tier.modulus_bits, tier.train_t) {}

bool AccuracyMap::seenBits(int bits) const {
  return std::find(seen_bits_.begin(), seen_bits_.end(), bits) != seen_bits_.end();
}

bool AccuracyMap::seenT(int64_t t) const {
  return std::find(seen_t_.begin(), seen_t_.end(), t) != seen_t_.end();
}

void AccuracyMap::add(const Example& example, bool correct) {
  const int bits = bitLength(example.n);
  Tally& tally = tallies_[{bits, example.t}];
  AccuracyCell& cell = tally.cell;
  if (cell.total == 0) {
    cell.bits = bits;
    cell.t = example.t;
    const bool sb = seenBits(bits), st = seenT(example.t);
    cell.kind = sb ? (st ? CellKind::kInDistribution : CellKind::kOodT)
                   : (st ? CellKind::kOodN : CellKind::kOodBoth);
  }
  ++cell.total;
  if (correct) ++cell.correct;
  const int64_t count = ++tally.answer_counts[example.z];
  // Ties go to the smaller answer so the reported answer does not depend on insertion order.
  if (count > cell.most_common_answer_count ||
      (count == cell.most_common_answer_count && example.z < cell.most_common_answer)) {
    cell.most_common_answer_count = count;
    cell.most_common_answer = example.z;
  }
  cell.distinct_answers = static_cast<int64_t>(tally.answer_counts.size());
}

std::vector<AccuracyCell> AccuracyMap::cells() const {
  std::vector<AccuracyCell> out;
  for (const auto& [key, tally] : tallies_) out.push_back(tally.cell);
  return out;
}

const AccuracyCell* AccuracyMap::find(int bits, int64_t t) const {
  const auto it = tallies_.find({bits, t});
  return it == tallies_.end() ? nullptr : &it->second.cell;
}

int64_t AccuracyMap::maxT(const std::vector<int64_t>& ladder, bool seen_moduli) const {
  std::map<int64_t, std::pair<int64_t, int64_t>> rungs;  // T -> (correct, total)
  for (const auto& [key, tally] : tallies_) {
    if (seenBits(key.first) != seen_moduli) continue;
    auto& rung = rungs[key.second];
    rung.first += tally.cell.correct;
    rung.second += tally.cell.total;
  }
  std::map<int64_t, double> accuracy_by_t;
  for (const auto& [t, rung] : rungs)
    accuracy_by_t[t] =
        rung.first == rung.second ? 1.0 : static_cast<double>(rung.first) / rung.second;
  return maxTFromRungs(ladder, accuracy_by_t);
}

std::string AccuracyMap::format() const {
  std::set<int> bits_set;
  std::set<int64_t> t_set;
  for (const auto& [key, tally] : tallies_) {
    bits_set.insert(key.first);
    t_set.insert(key.second);
  }
  std::string out = "bits \\ T";
  char buffer[64];
  for (int64_t t : t_set) {
    std::snprintf(buffer, sizeof buffer, " %14lld", static_cast<long long>(t));
    out += buffer;
  }
  out += "   (accuracy/chance; * = OOD)\n";
  for (int bits : bits_set) {
    std::snprintf(buffer, sizeof buffer, "%8d", bits);
    out += buffer;
    for (int64_t t : t_set) {
      const AccuracyCell* cell = find(bits, t);
      if (!cell) {
        std::snprintf(buffer, sizeof buffer, " %14s", "-");
      } else {
        std::snprintf(buffer, sizeof buffer, " %s%5.3f/%5.3f",
                      cell->kind == CellKind::kInDistribution ? "  " : " *", cell->accuracy(),
                      cell->chance());
      }
      out += buffer;
    }
    out += '\n';
  }
  return out;
}

int64_t maxTFromRungs(const std::vector<int64_t>& ladder,
                      const std::map<int64_t, double>& accuracy_by_t) {
  int64_t best = 0;
  for (int64_t t : ladder) {
    const auto it = accuracy_by_t.find(t);
    if (it == accuracy_by_t.end() || it->second < 1.0) break;
    best = t;
  }
  return best;
}

double chanceLevel(const std::vector<uint64_t>& answers) {
  if (answers.empty()) return 0.0;
  std::unordered_map<uint64_t, int64_t> counts;
  int64_t best = 0;
  for (uint64_t a : answers) best = std::max(best, ++counts[a]);
  return static_cast<double>(best) / static_cast<double>(answers.size());
}

}  // namespace deepladder::squaring
