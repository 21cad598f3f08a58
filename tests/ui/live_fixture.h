// A live ladder for the workbench tests: a depth ladder (vanilla and deep, depths 2..6, built-in
// corpus) queued through storage like `deepladder run` does, with every run but deep's largest
// finished on known laws, L(C) = 1.8 + A (C/1e10)^-gamma (vanilla A 1.2, gamma 0.10; deep A 1.1,
// gamma 0.105) times a small deterministic wobble, the runs ending in the order of their ids.
// finishQueuedRun() then ends the last one, as a worker would.
#pragma once

#include <cmath>
#include <string>

#include "core/ladder/ladder_spec.h"
#include "storage/database.h"
#include "storage/ladder_queue.h"

namespace deepladder::ui::testing {

inline const char* kLiveLadder = R"(
[ladder]
name = "live"
seeds = [1]
[model]
seq_len = 32
[train]
batch_size = 4
[sizes]
depths = [2, 3, 4, 5, 6]
width_per_depth = 16
head_dim = 16
[budget]
rule = "tokens_per_param"
tokens_per_param = 20
[arms.vanilla]
[arms.deep]
preset = "deep_vanilla"
[resources]
backend = "local"
devices = "cpu"
slots = 1
throughput_flops = 1e9
)";

inline double liveLoss(const std::string& arm, double flops, int64_t id) {
  const double A = arm == "vanilla" ? 1.2 : 1.1, gamma = arm == "vanilla" ? 0.10 : 0.105;
  return (1.8 + A * std::pow(flops / 1e10, -gamma)) * (1.0 + 0.002 * std::sin(3.0 * id));
}

// Returns the id of the run left queued (deep at depth 6).
inline int64_t buildLiveLadder(const std::string& db_path, const std::string& work_root) {
  const ladder::LadderSpec spec = ladder::parseLadder(kLiveLadder, "live.toml");
  auto db = storage::Database::open(db_path);
  const auto queued = storage::enqueueLadder(*db, spec, work_root);
  int64_t left = 0;
  double when = 1.7e9;
  for (const auto& s : db->listRuns(queued.ladder_id)) {
    if (s.run.arm == "deep" && s.run.size == "d6") {
      left = s.run.id;
      continue;
    }
    double flops = 0;
    for (const auto& p : spec.runs)
      if (p.name == s.run.name) flops = p.flops;
    db->markRunDone(s.run.id, RunStatus::kFinished, liveLoss(s.run.arm, flops, s.run.id), 100, 1000,
                    flops, when += 60, "");
  }
  return left;
}

inline void finishQueuedRun(const std::string& db_path, int64_t id) {
  auto db = storage::Database::open(db_path);
  const ladder::LadderSpec spec = ladder::parseLadder(kLiveLadder, "live.toml");
  double flops = 0;
  for (const auto& p : spec.runs)
    if (p.arm == "deep" && p.size == "d6") flops = p.flops;
  db->markRunDone(id, RunStatus::kFinished, liveLoss("deep", flops, id), 100, 1000, flops, 1.8e9,
                  "");
}

}  // namespace deepladder::ui::testing
