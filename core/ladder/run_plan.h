// The planned figures of one run, computed once when it is queued (from its ladder, or from a
// run file for `deepladder train`) and stored with it (the runs table's plan_* columns), so the
// scheduler, `status`, the GUI and the fits read typed columns instead of re-parsing configs.
#pragma once

#include <cstdint>

#include "core/run_config.h"

namespace deepladder::ladder {

struct RunPlan {
  Task task = Task::lm;
  int64_t steps = 0;
  int64_t tokens = 0;                       // steps x batch x seq_len
  double flops = 0;                         // training FLOPs, both growth phases
  int64_t params = 0;                       // trainable parameters (before growth)
  double flops_per_token = 0;               // before growth
  int64_t depth = 0;                        // the rung's depth (its n_layer before the arm preset)
  int64_t executed_depth = 0;               // blocks run per token (before growth)
  int64_t executed_depth_after_growth = 0;  // == executed_depth without growth
  int64_t crossover_step = -1;              // growth step, -1 without growth
  int64_t ranks = 1;                        // data-parallel worker processes
  int64_t gpus_per_rank = 0;                // 0: the backend's default
  double est_seconds = 0;                   // wall time: flops / (throughput x ranks)
};

// The plan of a config on its own (a single run, or a stored run queued before plans were
// kept): FLOPs from core/flop_model.h, depth = n_layer. `throughput_flops`: assumed training
// FLOP/s per slot for the time estimate (0: no estimate).
RunPlan planRunConfig(const RunConfig& config, double throughput_flops);

// The training FLOPs a token of this config costs, averaged over its run: a growing model spends
// grow_fraction of its steps at the low depth; a squaring step costs what its iterations cost
// (core/squaring/squaring_flops.h). A "flops" budget divided by this is the run's tokens.
double plannedFlopsPerToken(const RunConfig& config);

}  // namespace deepladder::ladder
