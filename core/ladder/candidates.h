// The runs a ladder could buy next (what `suggest` ranks): every arm x size x seed of the
// ladder's grid not yet run, one more seed of every rung that has a finished run, the next
// larger sizes the ladder's size rule gives (size_extension.h), and one sweep point past the
// edge of every rung whose best point is at an edge (sweep_extension.h). Each candidate is a
// complete planned run (config, FLOPs, estimated hours on the ladder's resources), ready to queue.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/ladder/ladder_spec.h"
#include "core/ladder/sweep_extension.h"
#include "core/run_status.h"

namespace deepladder::ladder {

enum class CandidateKind { kGridRung, kExtraSeed, kLargerSize, kSweepExtension };

// "grid rung" | "extra seed" | "larger size" | "sweep extension"
const char* candidateKindName(CandidateKind kind);

struct CandidateRun {
  CandidateKind kind = CandidateKind::kGridRung;
  PlannedRun run;  // arm, size, seed, name, config, flops, est_seconds
};

// A run the database already holds for this ladder.
struct ExistingRun {
  std::string arm, size;
  int64_t seed = 0;
  RunStatus status = RunStatus::kQueued;  // runs.status
  std::string sweep_label;  // its sweep point (sweepLabelOfRunName); "" without a sweep
};

struct CandidateOptions {
  int larger_sizes = 2;  // next sizes above each arm's largest (depth ladders only)
  bool extra_seeds = true;
  // true (an adaptive ladder): every run the ladder holds is taken, queued, interrupted, failed
  // or cancelled alike, so nothing is bought twice and a run that keeps failing is not bought
  // again; false (`suggest`): queued runs and failed or cancelled ones count as not yet run.
  bool queued_is_taken = false;
  // Rungs whose best sweep point is at an edge (the caller's fit decides,
  // fitting/sweep_envelope.h): each gets the point one step past it, unless a run of that point is
  // taken.
  std::vector<SweepEdge> sweep_edges;
  // The point each swept rung's fit uses (arm, size -> label): its extra seed repeats that point
  // (without an entry, the rung's first point).
  std::map<std::pair<std::string, std::string>, std::string> sweep_chosen;
};

// A grid run is taken when a run of the same arm, size, seed and sweep point is finished, diverged
// or running (any run at all with queued_is_taken). Extra seeds: the seed after the largest one the
// rung has (grid or database), at the rung's planned cost. Order: grid rungs, extra seeds, larger
// sizes, each by arm then size, then sweep extensions in the order of the edges.
std::vector<CandidateRun> candidateRuns(const LadderSpec& spec,
                                        const std::vector<ExistingRun>& existing,
                                        const CandidateOptions& options);

}  // namespace deepladder::ladder
