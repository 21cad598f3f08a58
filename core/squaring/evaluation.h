// Evaluation of the squaring task that needs no model, as the public benchmark scores it:
// exact match per example (every answer digit right; in the causal layout EOS too), the accuracy
// map over (modulus bits x T) with in-distribution and OOD cells marked, each cell beside its
// population chance and, for a fixed modulus, its composition ceiling (baselines.h); "Max T":
// the largest T on the depth ladder such that every rung up to it is 100% correct, the rungs
// being the depth cohorts (the same prompts at every T, none of them trained on); and the
// benchmark's score over seeds. Cells map one-to-one onto evals table rows
// (run, task, n_bits, T, correct, total).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/squaring/baselines.h"
#include "core/squaring/tiers.h"
#include "core/squaring/tokens.h"

namespace deepladder::squaring {

// True when the predicted answer tokens equal the gold ones (same length, every digit right).
bool exactMatch(const std::vector<int32_t>& predicted, const std::vector<int32_t>& gold);
bool exactMatch(const std::vector<int32_t>& predicted, const Example& example);
// Exact match on one row of a model's argmax predictions (seq_len tokens) laid out like the
// row of makeSeparateBatch (the answer predicted at the last len(answer) prompt positions, the
// prompt left-aligned) or makeCausalBatch (the predictions whose targets are the answer digits
// and EOS: a right answer without EOS is wrong, as the benchmark counts it).
bool exactMatchSeparateRow(const int32_t* predicted_row, int64_t seq_len, const Example& example);
bool exactMatchCausalRow(const int32_t* predicted_row, int64_t seq_len, const Example& example);

// Where a cell lies relative to training: seen moduli size and seen T, or out of distribution.
enum class CellKind { kInDistribution, kOodT, kOodN, kOodBoth };

struct AccuracyCell {
  int bits = 0;
  int64_t t = 0;
  CellKind kind = CellKind::kInDistribution;
  int64_t total = 0;
  int64_t correct = 0;
  double chance_sum = 0;     // sum over the cell's examples of populationChance(N, T)
  int64_t derivable = 0;     // examples that chaining the training facts reaches
  bool has_ceiling = false;  // the map knows the training facts (fixed-modulus tier)

  double accuracy() const { return total ? static_cast<double>(correct) / total : 0.0; }
  // The population chance of the cell's prompts (baselines.h).
  double chance() const { return total ? chance_sum / static_cast<double>(total) : 0.0; }
  // The composition ceiling: NaN when the map has no training facts.
  double ceiling() const {
    return has_ceiling && total ? static_cast<double>(derivable) / static_cast<double>(total)
                                : std::nan("");
  }
};

class AccuracyMap {
 public:
  // Cells whose bits are in `seen_bits` count as seen moduli; T in `seen_t` as seen T.
  AccuracyMap(std::vector<int> seen_bits, std::vector<int64_t> seen_t);
  explicit AccuracyMap(const TierPreset& tier);

  // The training facts behind each cell's composition ceiling (examples added afterwards).
  void setCompositionClosure(std::shared_ptr<const CompositionClosure> closure);

  // Records one scored example (bits = bit_length(n)). Throws UserError when n is not a
  // semiprime (its chance needs the factors).
  void add(const Example& example, bool correct);

  // Cells ordered by (bits, T).
  std::vector<AccuracyCell> cells() const;
  // nullptr when no example fell into the cell.
  const AccuracyCell* find(int bits, int64_t t) const;

  bool seenBits(int bits) const;
  bool seenT(int64_t t) const;

  // Max T over the cells of seen moduli sizes (seen = true) or of unseen ones (false).
  int64_t maxT(const std::vector<int64_t>& ladder, bool seen_moduli) const;

  // A plain-text table: rows bits, columns T, each cell "acc/chance" (or "acc/chance/ceiling"
  // with training facts) with a mark for OOD.
  std::string format() const;

 private:
  std::vector<int> seen_bits_;
  std::vector<int64_t> seen_t_;
  std::map<std::pair<int, int64_t>, AccuracyCell> cells_;
  std::unordered_map<uint64_t, Semiprime> factors_;  // of every N seen so far
  std::shared_ptr<const CompositionClosure> closure_;
};

// Max T from per-rung accuracies: the largest T of `ladder` (ascending) such that every rung up
// to it has accuracy 1 (a rung missing from `accuracy_by_t` counts as failed); 0 when the first
// rung already fails.
int64_t maxTFromRungs(const std::vector<int64_t>& ladder,
                      const std::map<int64_t, double>& accuracy_by_t);

// The benchmark's score and Max T over seeds (benchmark/runner.py): the score is the mean of
// every seed's test and OOD exact match (= the mean over seeds of (test + ood) / 2); Max T is
// the minimum over seeds of each seed's certified depth (a seed that clears no rung counts 0).
struct SeedResult {
  int64_t seed = 0;
  double test_exact = 0;
  double ood_exact = 0;
  int64_t max_t = 0;        // seen-N cohort
  int64_t max_t_ood_n = 0;  // OOD-N cohort
};
struct ScoreOverSeeds {
  int64_t seeds = 0;
  double score = 0;       // mean of test and OOD exact over seeds
  double test_exact = 0;  // mean over seeds
  double ood_exact = 0;   // mean over seeds
  int64_t max_t = 0;      // min over seeds
  int64_t max_t_ood_n = 0;
};
double benchmarkScore(double test_exact, double ood_exact);           // (test + ood) / 2
ScoreOverSeeds scoreOverSeeds(const std::vector<SeedResult>& seeds);  // zeros for none

}  // namespace deepladder::squaring
