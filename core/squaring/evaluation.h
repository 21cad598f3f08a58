// Evaluation of the squaring task that needs no model: exact match per example (every answer
// digit right), the accuracy map over (modulus bits x T) with in-distribution and OOD cells
// marked and each cell's chance level (the accuracy of always answering the cell's most common
// answer: for N = 323 and T >= 4 only 9 answers occur, so a partial score can look better than
// it is), and "Max T": the largest T on the depth ladder such that every rung up to it is 100%
// correct, for seen and for unseen moduli. Cells map one-to-one onto evals table rows
// (run, task, n_bits, T, correct, total).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/squaring/tiers.h"
#include "core/squaring/tokens.h"

namespace deepladder::squaring {

// True when the predicted answer tokens equal the gold ones (same length, every digit right).
bool exactMatch(const std::vector<int32_t>& predicted, const std::vector<int32_t>& gold);
bool exactMatch(const std::vector<int32_t>& predicted, const Example& example);
// Exact match on one row of a model's argmax predictions (seq_len tokens) laid out like the
// row of makeSeparateBatch (answer at the last len(answer) positions) or makeCausalBatch (the
// predictions whose targets are the answer digits; EOS is not part of the answer).
bool exactMatchSeparateRow(const int32_t* predicted_row, int64_t seq_len, const Example& example);
bool exactMatchCausalRow(const int32_t* predicted_row, int64_t seq_len, const Example& example);

// Where a cell lies relative to training: seen moduli size and seen T, or out of distribution.
enum class CellKind { kInDistribution, kOodT, kOodN, kOodBoth };
const char* cellKindName(CellKind kind);  // "in", "ood_t", "ood_n", "ood_both"

struct AccuracyCell {
  int bits = 0;
  int64_t t = 0;
  CellKind kind = CellKind::kInDistribution;
  int64_t total = 0;
  int64_t correct = 0;
  int64_t most_common_answer_count = 0;  // examples whose answer is the cell's commonest one
  uint64_t most_common_answer = 0;
  int64_t distinct_answers = 0;

  double accuracy() const { return total ? static_cast<double>(correct) / total : 0.0; }
  // Accuracy of always answering the cell's most common answer.
  double chance() const {
    return total ? static_cast<double>(most_common_answer_count) / total : 0.0;
  }
};

class AccuracyMap {
 public:
  // Cells whose bits are in `seen_bits` count as seen moduli; T in `seen_t` as seen T.
  AccuracyMap(std::vector<int> seen_bits, std::vector<int64_t> seen_t);
  explicit AccuracyMap(const TierPreset& tier);

  // Records one scored example (bits = bit_length(n)).
  void add(const Example& example, bool correct);

  // Cells ordered by (bits, T).
  std::vector<AccuracyCell> cells() const;
  // nullptr when no example fell into the cell.
  const AccuracyCell* find(int bits, int64_t t) const;

  bool seenBits(int bits) const;
  bool seenT(int64_t t) const;

  // Max T over the cells of seen moduli sizes (seen = true) or of unseen ones (false).
  int64_t maxT(const std::vector<int64_t>& ladder, bool seen_moduli) const;

  // A plain-text table: rows bits, columns T, each cell "acc/chance" with a mark for OOD.
  std::string format() const;

 private:
  struct Tally {
    AccuracyCell cell;
    std::unordered_map<uint64_t, int64_t> answer_counts;
  };
  std::vector<int> seen_bits_;
  std::vector<int64_t> seen_t_;
  std::map<std::pair<int, int64_t>, Tally> tallies_;
};

// Max T from per-rung accuracies: the largest T of `ladder` (ascending) such that every rung up
// to it has accuracy 1 (a rung missing from `accuracy_by_t` counts as failed); 0 when the first
// rung already fails.
int64_t maxTFromRungs(const std::vector<int64_t>& ladder,
                      const std::map<int64_t, double>& accuracy_by_t);

// Chance level of a set of answers: the share of the most common one (0 for none).
double chanceLevel(const std::vector<uint64_t>& answers);

}  // namespace deepladder::squaring
