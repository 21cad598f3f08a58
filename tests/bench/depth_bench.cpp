// Depth-architecture overheads, measured side by side in one run:
//   1. untied_grow's training tokens/s against a vanilla stack with the same executed depth, in
//      both growth phases (K = 2: p + 2c + o blocks; K = 4 after growth: p + 4c + o blocks). The
//      pcc model adds only the boundary operator between passes; target: within 5%.
//   2. The logit lens per eval (decoding every block's state over the eval batches) relative to
//      one training step, as the trainer reports it in the metric lens/cost_steps.
//
//   depth_bench [--threads N] [--seconds S] [--rounds R] [--d D] [--layers L] [--smoke]
// (--smoke: d 64, 0.3 s, one round; the 5% goal is judged by the full run only)
// Rounds alternate the models; the best round of each is reported (the machine is shared).
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/architecture.h"
#include "tests/bench/bench_goals.h"
#include "trainers/adamw.h"
#include "trainers/eval_depth.h"
#include "trainers/gpt.h"
#include "trainers/growth.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace deepladder;
using namespace deepladder::trainers;

double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Trainee {
  std::string label;
  GPT model{nullptr};
  std::unique_ptr<AdamW> optimizer;
};

Trainee build(const std::string& label, const ModelConfig& m, bool grow) {
  torch::manual_seed(1);
  Trainee t;
  t.label = label;
  t.model = GPT(m);
  t.optimizer = std::make_unique<AdamW>(t.model->parameters(), AdamWOptions{});
  if (grow) growModelAndOptimizer(t.model, t.optimizer, AdamWOptions{});
  return t;
}

void trainStep(Trainee& t, const torch::Tensor& batch) {
  const int64_t T = batch.size(1) - 1;
  auto loss = t.model->loss(batch.narrow(1, 0, T), batch.narrow(1, 1, T));
  loss.backward();
  t.optimizer->clipGradNorm(1.0);
  t.optimizer->step(1e-4);
  t.optimizer->zeroGrad();
}

// Seconds per step over about `budget` seconds (after one warm-up step).
double secondsPerStep(Trainee& t, const torch::Tensor& batch, double budget) {
  trainStep(t, batch);
  const auto start = Clock::now();
  int64_t steps = 0;
  while (seconds(start) < budget || steps < 2) {
    trainStep(t, batch);
    ++steps;
  }
  return seconds(start) / static_cast<double>(steps);
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals goals(deepladder::bench::takeSmokeFlag(argc, argv));
  int threads = 1, rounds = 3;
  double budget = 2.0;
  int64_t d = 128, layers = 6;
  if (goals.smoke()) budget = 0.3, rounds = 1, d = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (flag == "--seconds")
      budget = std::atof(argv[i + 1]);
    else if (flag == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else if (flag == "--d")
      d = std::atoll(argv[i + 1]);
    else if (flag == "--layers")
      layers = std::atoll(argv[i + 1]);
  }
  torch::set_num_threads(threads);
  ModelConfig base;
  base.vocab_size = 256;
  base.d_model = d;
  base.n_head = 4;
  base.n_layer = layers;
  base.seq_len = 128;
  const int64_t batch_rows = 16;

  ModelConfig untied_grow = base;
  applyArmPreset("untied_grow", untied_grow);
  const ArchitectureShape shape = architectureShape(untied_grow);
  ModelConfig vanilla_low = base, vanilla_high = base;
  vanilla_low.n_layer = shape.before.executed_blocks;
  vanilla_high.n_layer = shape.after.executed_blocks;

  std::vector<Trainee> trainees;
  trainees.push_back(build("untied_grow K=2", untied_grow, false));
  trainees.push_back(build("vanilla L=" + std::to_string(vanilla_low.n_layer), vanilla_low, false));
  trainees.push_back(build("untied_grow K=4 (grown)", untied_grow, true));
  trainees.push_back(
      build("vanilla L=" + std::to_string(vanilla_high.n_layer), vanilla_high, false));

  torch::manual_seed(2);
  const auto batch =
      torch::randint(0, base.vocab_size, {batch_rows, base.seq_len + 1}, torch::kInt64);
  std::vector<double> best(trainees.size(), 1e30);
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < trainees.size(); ++i)
      best[i] = std::min(best[i], secondsPerStep(trainees[i], batch, budget));

  const double tokens = static_cast<double>(batch_rows * base.seq_len);
  std::printf(
      "depth_bench: d_model %lld, n_layer %lld (split %lld/%lld/%lld), seq %lld, batch %lld, "
      "threads %d, best of %d rounds of %.1f s\n",
      (long long)d, (long long)layers, (long long)shape.split.prelude, (long long)shape.split.core,
      (long long)shape.split.coda, (long long)base.seq_len, (long long)batch_rows, threads, rounds,
      budget);
  for (size_t i = 0; i < trainees.size(); ++i)
    std::printf("  %-26s executed %3lld blocks  %10.0f tokens/s  %8.2f ms/step\n",
                trainees[i].label.c_str(), (long long)trainees[i].model->executedBlocks(),
                tokens / best[i], best[i] * 1e3);
  const double ratio_low = best[1] / best[0], ratio_high = best[3] / best[2];
  std::printf(
      "untied_grow tokens/s relative to vanilla of the same executed depth: K=2 %.3f, "
      "K=4 %.3f\n",
      ratio_low, ratio_high);
  goals.atLeast("untied_grow K=2 tokens/s / vanilla's", ratio_low, 0.95, "");
  goals.atLeast("untied_grow K=4 tokens/s / vanilla's", ratio_high, 0.95, "");

  // Logit lens per eval (the trainer's eval: eval_batches of batch_rows rows) vs one step.
  const int64_t eval_batches = 8;
  std::vector<torch::Tensor> val;
  for (int64_t b = 0; b < eval_batches; ++b)
    val.push_back(
        torch::randint(0, base.vocab_size, {batch_rows, base.seq_len + 1}, torch::kInt64));
  for (size_t i : {size_t{2}, size_t{3}}) {
    Trainee& t = trainees[i];
    double with_lens = 1e30, without = 1e30, lens_only = 1e30;
    for (int r = 0; r < rounds; ++r) {
      auto start = Clock::now();
      validate(t.model, val, false);
      without = std::min(without, seconds(start));
      start = Clock::now();
      const ValidationResult v = validate(t.model, val, true);
      with_lens = std::min(with_lens, seconds(start));
      lens_only = std::min(lens_only, v.lens_seconds);
    }
    std::printf(
        "logit lens per eval (%lld batches, %lld states) for %s: %.1f ms = %.2f training "
        "steps (validation alone %.1f ms = %.2f steps; with lens %.1f ms)\n",
        (long long)eval_batches, (long long)t.model->executedBlocks() + 1, t.label.c_str(),
        lens_only * 1e3, lens_only / best[i], without * 1e3, without / best[i], with_lens * 1e3);
  }
  return goals.exitCode();
}
