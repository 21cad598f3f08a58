// Exact match, accuracy maps with chance levels and composition ceilings, Max T and the
// benchmark score over seeds (see evaluation.h).
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
  int32_t prompt[64], answer[20];
  const int prompt_len = writePromptTokens(example.n, example.x, example.t, prompt);
  const int len = writeDigitTokens(example.z, answer);
  if (prompt_len > seq_len || len > prompt_len) return false;
  return std::equal(answer, answer + len, predicted_row + (prompt_len - len));
}

bool exactMatchCausalRow(const int32_t* predicted_row, int64_t seq_len, const Example& example) {
  int32_t prompt[64], answer[20];
  const int prompt_len = writePromptTokens(example.n, example.x, example.t, prompt);
  const int len = writeDigitTokens(example.z, answer);
  // Inputs are BOS prompt ANS answer...; the prediction at the ANS position (index
  // prompt_len + 1) is the first answer digit, the one after the last digit is EOS.
  const int64_t first = prompt_len + 1;
  if (first + len + 1 > seq_len) return false;
  return std::equal(answer, answer + len, predicted_row + first) &&
         predicted_row[first + len] == kEos;
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

void AccuracyMap::setCompositionClosure(std::shared_ptr<const CompositionClosure> closure) {
  closure_ = std::move(closure);
}

void AccuracyMap::add(const Example& example, bool correct) {
  const int bits = bitLength(example.n);
  AccuracyCell& cell = cells_[{bits, example.t}];
  if (cell.total == 0) {
    cell.bits = bits;
    cell.t = example.t;
    const bool sb = seenBits(bits), st = seenT(example.t);
    cell.kind = sb ? (st ? CellKind::kInDistribution : CellKind::kOodT)
                   : (st ? CellKind::kOodN : CellKind::kOodBoth);
  }
  ++cell.total;
  if (correct) ++cell.correct;
  auto it = factors_.find(example.n);
  if (it == factors_.end()) it = factors_.emplace(example.n, factorSemiprime(example.n)).first;
  cell.chance_sum += populationChance(it->second, example.t);
  if (closure_) {
    cell.has_ceiling = true;
    if (example.t <= closure_->maxT() && closure_->derivable(example.n, example.x, example.t))
      ++cell.derivable;
  }
}

std::vector<AccuracyCell> AccuracyMap::cells() const {
  std::vector<AccuracyCell> out;
  for (const auto& [key, cell] : cells_) out.push_back(cell);
  return out;
}

const AccuracyCell* AccuracyMap::find(int bits, int64_t t) const {
  const auto it = cells_.find({bits, t});
  return it == cells_.end() ? nullptr : &it->second;
}

int64_t AccuracyMap::maxT(const std::vector<int64_t>& ladder, bool seen_moduli) const {
  std::map<int64_t, std::pair<int64_t, int64_t>> rungs;  // T -> (correct, total)
  for (const auto& [key, cell] : cells_) {
    if (seenBits(key.first) != seen_moduli) continue;
    auto& rung = rungs[key.second];
    rung.first += cell.correct;
    rung.second += cell.total;
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
  for (const auto& [key, cell] : cells_) {
    bits_set.insert(key.first);
    t_set.insert(key.second);
  }
  const bool ceiling = closure_ != nullptr;
  const int width = ceiling ? 20 : 14;
  std::string out = "bits \\ T";
  char buffer[64];
  for (int64_t t : t_set) {
    std::snprintf(buffer, sizeof buffer, " %*lld", width, static_cast<long long>(t));
    out += buffer;
  }
  out += ceiling ? "   (accuracy/chance/composition ceiling; * = OOD)\n"
                 : "   (accuracy/chance; * = OOD)\n";
  for (int bits : bits_set) {
    std::snprintf(buffer, sizeof buffer, "%8d", bits);
    out += buffer;
    for (int64_t t : t_set) {
      const AccuracyCell* cell = find(bits, t);
      if (!cell) {
        std::snprintf(buffer, sizeof buffer, " %*s", width, "-");
      } else {
        const char* mark = cell->kind == CellKind::kInDistribution ? "  " : " *";
        if (ceiling)
          std::snprintf(buffer, sizeof buffer, " %s%5.3f/%5.3f/%5.3f", mark, cell->accuracy(),
                        cell->chance(), cell->ceiling());
        else
          std::snprintf(buffer, sizeof buffer, " %s%5.3f/%5.3f", mark, cell->accuracy(),
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

double benchmarkScore(double test_exact, double ood_exact) {
  return (test_exact + ood_exact) / 2.0;
}

ScoreOverSeeds scoreOverSeeds(const std::vector<SeedResult>& seeds) {
  ScoreOverSeeds out;
  if (seeds.empty()) return out;
  out.seeds = static_cast<int64_t>(seeds.size());
  out.max_t = seeds.front().max_t;
  out.max_t_ood_n = seeds.front().max_t_ood_n;
  for (const SeedResult& s : seeds) {
    out.test_exact += s.test_exact / static_cast<double>(seeds.size());
    out.ood_exact += s.ood_exact / static_cast<double>(seeds.size());
    out.max_t = std::min(out.max_t, s.max_t);
    out.max_t_ood_n = std::min(out.max_t_ood_n, s.max_t_ood_n);
  }
  out.score = benchmarkScore(out.test_exact, out.ood_exact);
  return out;
}

}  // namespace deepladder::squaring
