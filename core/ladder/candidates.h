// The runs a ladder could buy next (what `suggest` ranks): every arm x size x seed of the
// ladder's grid not yet run, one more seed of every rung that has a finished run, and the next
// larger sizes the ladder's size rule gives (size_extension.h). Each candidate is a complete
// planned run (config, FLOPs, estimated hours on the ladder's resources), ready to queue.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ladder/ladder_spec.h"

namespace deepladder::ladder {

enum class CandidateKind { kGridRung, kExtraSeed, kLargerSize };

// "grid rung" | "extra seed" | "larger size"
const char* candidateKindName(CandidateKind kind);

struct CandidateRun {
  CandidateKind kind = CandidateKind::kGridRung;
  PlannedRun run;  // arm, size, seed, name, config, flops, est_seconds
};

// A run the database already holds for this ladder.
struct ExistingRun {
  std::string arm, size;
  int64_t seed = 0;
  std::string status;       // runs.status
  std::string sweep_label;  // its sweep point (sweepLabelOfRunName); "" without a sweep
};

struct CandidateOptions {
  int larger_sizes = 2;  // next sizes above each arm's largest (depth ladders only)
  bool extra_seeds = true;
  // true (an adaptive ladder): every run the ladder holds is taken, queued, interrupted, failed
  // or cancelled alike, so nothing is bought twice and a run that keeps failing is not bought
  // again; false (`suggest`): queued runs and failed or cancelled ones count as not yet run.
  bool queued_is_taken = false;
};

// A grid run is taken when a run of the same arm, size, seed and sweep point is finished, diverged
// or running (any run at all with queued_is_taken). Extra seeds: the seed after the largest one the
// rung has (grid or database), at the rung's planned cost. Order: grid rungs, extra seeds, larger
// sizes, each by arm then size.
std::vector<CandidateRun> candidateRuns(const LadderSpec& spec,
                                        const std::vector<ExistingRun>& existing,
                                        const CandidateOptions& options);

}  // namespace deepladder::ladder
