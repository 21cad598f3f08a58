// Candidate runs of a ladder (see candidates.h).
#include "core/ladder/candidates.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/ladder/size_extension.h"
#include "core/run_status.h"

namespace deepladder::ladder {

const char* candidateKindName(CandidateKind kind) {
  switch (kind) {
    case CandidateKind::kGridRung:
      return "grid rung";
    case CandidateKind::kExtraSeed:
      return "extra seed";
    case CandidateKind::kLargerSize:
      return "larger size";
    case CandidateKind::kSweepExtension:
      return "sweep extension";
  }
  return "?";
}

namespace {

bool isTaken(RunStatus status, bool queued_is_taken) {
  if (status == RunStatus::kFinished || status == RunStatus::kDiverged ||
      status == RunStatus::kRunning)
    return true;
  return queued_is_taken;
}

// A planned run of the same rung at another seed (name and train seed follow).
PlannedRun withSeed(PlannedRun run, int64_t seed) {
  run.seed = seed;
  run.name = sweepRunName(run.arm, run.size, seed, run.sweep_label);
  run.config.name = run.name;
  run.config.train.seed = seed;
  return run;
}

}  // namespace

std::vector<CandidateRun> candidateRuns(const LadderSpec& spec,
                                        const std::vector<ExistingRun>& existing,
                                        const CandidateOptions& options) {
  using Key = std::tuple<std::string, std::string, int64_t, std::string>;  // arm, size, seed, point
  std::set<Key> taken;
  std::set<std::pair<std::string, std::string>> finished_rungs;
  std::map<std::pair<std::string, std::string>, int64_t> top_seed;
  for (const ExistingRun& e : existing) {
    if (isTaken(e.status, options.queued_is_taken))
      taken.insert({e.arm, e.size, e.seed, e.sweep_label});
    if (e.status == RunStatus::kFinished) finished_rungs.insert({e.arm, e.size});
    auto& top = top_seed[{e.arm, e.size}];
    top = std::max(top, e.seed);
  }
  // Larger sizes already bought (an adaptive ladder's) push the next ones further out.
  std::set<std::string> grid_sizes(spec.sizes.begin(), spec.sizes.end());
  std::map<std::string, int> bought_beyond;
  for (const auto& [rung, seed] : top_seed)
    if (!grid_sizes.count(rung.second)) ++bought_beyond[rung.first];
  int beyond = 0;
  for (const auto& [arm, n] : bought_beyond) beyond = std::max(beyond, n);
  const std::vector<PlannedRun> bigger = options.larger_sizes > 0
                                             ? largerSizeRuns(spec, options.larger_sizes + beyond)
                                             : std::vector<PlannedRun>{};

  std::vector<CandidateRun> out;
  std::vector<const PlannedRun*> rung_plans;  // first plan of every rung, grid then larger
  std::set<std::pair<std::string, std::string>> planned;
  for (const auto* runs : {&spec.runs, &bigger})
    for (const PlannedRun& run : *runs) {
      auto& top = top_seed[{run.arm, run.size}];
      top = std::max(top, run.seed);
      if (planned.insert({run.arm, run.size}).second) rung_plans.push_back(&run);
    }
  // A swept rung's extra seed repeats the point its fit uses.
  for (const PlannedRun*& plan : rung_plans) {
    const auto chosen = options.sweep_chosen.find({plan->arm, plan->size});
    if (chosen == options.sweep_chosen.end()) continue;
    for (const PlannedRun& run : spec.runs)
      if (run.arm == plan->arm && run.size == plan->size && run.sweep_label == chosen->second) {
        plan = &run;
        break;
      }
  }
  for (const PlannedRun& run : spec.runs)
    if (!taken.count({run.arm, run.size, run.seed, run.sweep_label}))
      out.push_back({CandidateKind::kGridRung, run});
  if (options.extra_seeds)
    for (const PlannedRun* run : rung_plans) {
      const std::pair<std::string, std::string> rung{run->arm, run->size};
      if (finished_rungs.count(rung))
        out.push_back({CandidateKind::kExtraSeed, withSeed(*run, top_seed[rung] + 1)});
    }
  std::map<std::string, int> offered;
  for (const PlannedRun& run : bigger) {
    if (top_seed.count({run.arm, run.size}) && finished_rungs.count({run.arm, run.size})) continue;
    if (taken.count({run.arm, run.size, run.seed, run.sweep_label})) continue;
    if (offered[run.arm]++ >= options.larger_sizes) continue;
    out.push_back({CandidateKind::kLargerSize, run});
  }
  for (const PlannedRun& run : sweepExtensionRuns(spec, options.sweep_edges)) {
    if (taken.count({run.arm, run.size, run.seed, run.sweep_label})) continue;
    // A grid point not run yet (cancelled, or queued) may be the one past the edge: it is then
    // offered once, as the extension.
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const CandidateRun& c) { return c.run.name == run.name; });
    if (same != out.end())
      same->kind = CandidateKind::kSweepExtension;
    else
      out.push_back({CandidateKind::kSweepExtension, run});
  }
  return out;
}

}  // namespace deepladder::ladder
