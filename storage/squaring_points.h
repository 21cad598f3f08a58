// The points of a squaring ladder (task = "squaring") for `fit`, `export` and `plot`: per
// finished run its arm, training FLOPs and, from the evals table at the run's last evaluated
// step, Max T on seen and on unseen moduli (squaring/depth), exact match on the tier's OOD T
// (squaring/ood_t) and on the held-out prompts (squaring/test). Tiers come from each run's config.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
};

// True when `ladder_or_source` names a ladder whose runs have task = "squaring".
bool isSquaringLadder(Database& db, const std::string& ladder_or_source);

// Finished squaring runs of the ladder, by run id. Throws UserError naming the database when the
// ladder is unknown, has no finished runs, or a finished run has no squaring/depth evals.
std::vector<SquaringPoint> squaringPoints(Database& db, const std::string& db_label,
                                          const std::string& ladder);

}  // namespace deepladder::storage
