// The points of a squaring ladder (task = "squaring") for `fit`, `export` and `plot`: per
// finished run its arm, size, seed, training FLOPs and, from the evals table at the run's last
// evaluated step, Max T on seen and on unseen moduli (squaring/depth: the depth cohorts), exact
// match on the tier's OOD T (squaring/ood_t) and on the held-out prompts (squaring/test), the
// benchmark's score (their mean), and beside test and OOD the population chance and, for a
// fixed-modulus tier, the composition ceiling of those sets (core/squaring/baselines.h, from the
// run's data regenerated from its config), and whether its options are admissible under the
// benchmark's rules. squaringScoresOverSeeds groups runs of one arm and
// size across seeds as the benchmark does (mean score, minimum Max T).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/squaring/evaluation.h"
#include "storage/database.h"

namespace deepladder::storage {

struct SquaringPoint {
  int64_t run_id = 0;
  std::string arm;
  double compute = 0;        // training FLOPs of the run
  int64_t step = 0;          // the step whose evals are used (the last one with squaring/depth)
  int64_t max_t_seen = 0;    // Max T on the training moduli sizes (depth ladder, 100% rungs)
  int64_t max_t_unseen = 0;  // Max T on the tier's OOD moduli sizes
  double ood_exact = 0;      // correct / total over the squaring/ood_t cells
  double test_exact = 0;     // correct / total over the squaring/test cells
  std::string size;
  std::string sweep;  // the run's sweep point ("lr0.001"; "" outside a sweep)
  int64_t seed = 0;
  double score = 0;         // (test_exact + ood_exact) / 2
  double test_chance = 0;   // population chance of the test set
  double ood_chance = 0;    // and of the OOD set
  double test_ceiling = 0;  // composition ceiling of the test set (NaN: sampled moduli)
  double ood_ceiling = 0;
  // Under the benchmark's rules, from the run's options (core/options/admissibility.h).
  bool admissible = true;
  std::string inadmissible_options;  // the offending keys, ", "-joined ("" when admissible)
};

// One (arm, size, sweep point) of a ladder across its seeds: the benchmark's mean score and
// minimum Max T.
struct SquaringSeedGroup {
  std::string arm, size, sweep;
  double compute = 0;  // mean training FLOPs
  squaring::ScoreOverSeeds score;
};

// Groups points by (arm, size, sweep point), in order of first appearance.
std::vector<SquaringSeedGroup> squaringScoresOverSeeds(const std::vector<SquaringPoint>& points);

// True when `ladder_or_source` names a ladder whose runs have task = "squaring".
bool isSquaringLadder(Database& db, const std::string& ladder_or_source);

// Finished squaring runs of the ladder, by run id. Throws UserError naming the database when the
// ladder is unknown, has no finished runs, or a finished run has no squaring/depth evals.
std::vector<SquaringPoint> squaringPoints(Database& db, const std::string& db_label,
                                          const std::string& ladder);

}  // namespace deepladder::storage
