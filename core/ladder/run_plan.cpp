// A run config's plan (see run_plan.h).
#include "core/ladder/run_plan.h"

#include "core/architecture.h"
#include "core/flop_model.h"
#include "core/squaring/squaring_flops.h"

namespace deepladder::ladder {

RunPlan planRunConfig(const RunConfig& config, double throughput_flops) {
  RunPlan plan;
  const ModelConfig& m = config.model;
  const int64_t tokens_per_step = config.train.batch_size * m.seq_len;
  plan.task = config.task;
  plan.steps = config.train.steps;
  plan.tokens = config.train.steps * tokens_per_step;
  // The squaring trainer's steps cost what their iterations cost (per-T depth, re-entering loop
  // rows, sampled iterations), which the model's plain FLOPs per token do not say.
  plan.flops =
      config.task == Task::squaring
          ? static_cast<double>(config.train.steps) * squaring::plannedSquaringStepFlops(config)
          : trainingFlops(m, config.train.steps, tokens_per_step);
  plan.params = countParameters(m).total;
  plan.flops_per_token = flopsPerToken(m);
  plan.depth = m.n_layer;
  plan.executed_depth = executedBlocks(m, false);
  plan.executed_depth_after_growth = executedBlocks(m, true);
  plan.crossover_step = growthStep(m, config.train.steps);
  plan.ranks = config.train.ranks;
  plan.gpus_per_rank = config.train.gpus_per_rank;
  if (throughput_flops > 0)
    plan.est_seconds = plan.flops / (throughput_flops * static_cast<double>(plan.ranks));
  return plan;
}

double plannedFlopsPerToken(const RunConfig& config) {
  const ModelConfig& m = config.model;
  if (config.task == Task::squaring)
    return squaring::plannedSquaringStepFlops(config) /
           static_cast<double>(config.train.batch_size * m.seq_len);
  const double f = architectureShape(m).grows ? m.grow_fraction : 1.0;
  return f * flopsPerToken(m, false) + (1 - f) * flopsPerToken(m, true);
}

}  // namespace deepladder::ladder
