// gpu_check_run: one run of a ladder set up as `deepladder plan` plans it (its micro-batch for the
// ladder's device memory), shortened for scripts/gpu-check, with the plan's memory estimate beside
// it so the check can print measured against planned. Links core only (no LibTorch), so it builds
// on a bare GPU node (headless) and on the CPU machine.
//
//   gpu_check_run LADDER RUN CORPUS STEPS DEVICE [--tiny]
//
// RUN is a run's name as `plan` lists it (e.g. vanilla-d6-s1). The run keeps its model, batch,
// micro-batch, precision and checkpointing; its schedule is compressed to STEPS steps (growth at
// the same fraction, so a grow arm trains both phases and its larger one is what the plan
// estimates), validation once at the end, no intermediate checkpoints, data from the text file
// CORPUS (byte tokens, within any vocabulary: the shapes and hence memory and FLOPs are those of
// the planned run) and train.device = DEVICE.
// --tiny (the CPU dry run): the same arm and depth at width 64 (one head), sequence 64, batch 4 in
// micro-batches of 2, so that a CPU runs it in seconds; the estimate is then that of the tiny run.
//
// Prints one JSON object: {"config": the run config, "plan": {"micro_batch", "peak_memory_gb",
// "comparable_gb", "runtime_gb", "peak_phase", "flops_per_token", "tiny"}}, where comparable_gb is
// what the worker's peak_memory_gb measures: on CUDA the allocator's max allocated, i.e. the
// estimate without its runtime term (context and library workspaces); on the CPU the whole
// estimate (the resident set includes the runtime). Exit 2 with a message for a bad argument.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/flop_model.h"
#include "core/ladder/ladder_spec.h"
#include "core/memory_model.h"
#include "core/options/validate.h"
#include "core/run_config.h"

namespace {

using namespace deepladder;

int usage() {
  std::cerr << "usage: gpu_check_run LADDER RUN CORPUS STEPS DEVICE [--tiny]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) return usage();
  const bool tiny = argc == 7 && std::string(argv[6]) == "--tiny";
  if (argc == 7 && !tiny) return usage();
  const std::string ladder_path = argv[1], run_name = argv[2], corpus = argv[3], device = argv[5];
  const int64_t steps = std::atoll(argv[4]);
  if (steps < 2) return usage();
  try {
    const ladder::LadderSpec spec = ladder::loadLadder(ladder_path);
    const auto run = std::find_if(spec.runs.begin(), spec.runs.end(),
                                  [&](const ladder::PlannedRun& r) { return r.name == run_name; });
    if (run == spec.runs.end()) {
      std::cerr << "gpu_check_run: " << ladder_path << " has no run " << run_name
                << " (see deepladder plan " << ladder_path << ")\n";
      return 2;
    }
    RunConfig config = run->config;  // micro-batch as planned for the ladder's devices
    config.name = "gpu-check-" + run_name;
    config.data = DataConfig{};
    config.data.kind = DataKind::text;
    config.data.train = corpus;
    config.data.val = corpus;
    config.data.max_epochs = 1000;  // a few MB of text read many times over: a check, not a run
    TrainConfig& t = config.train;
    t.steps = steps;
    t.warmup_steps = std::min<int64_t>(t.warmup_steps, steps / 5);
    config.model.rewarm_steps = std::min<int64_t>(config.model.rewarm_steps, steps / 5);
    t.eval_every = steps;
    t.eval_batches = 2;
    t.checkpoint_every = 0;
    t.ranks = 1;
    t.device = device;
    if (tiny) {
      config.model.d_model = 64;
      config.model.n_head = 1;
      config.model.seq_len = 64;
      t.batch_size = 4;
      t.micro_batch = 2;
    }
    options::validateRunConfig(config, "gpu_check_run " + run_name);
    const MemoryModelOptions memory = memoryModelOptionsFor(config);
    const MemoryEstimate est = estimateMemory(config, t.micro_batch, memory);
    const nlohmann::json plan = {
        {"micro_batch", est.micro_batch},
        {"peak_memory_gb", est.peak / 1e9},
        {"comparable_gb", (memory.cuda ? est.peak - est.runtime : est.peak) / 1e9},
        {"runtime_gb", est.runtime / 1e9},
        {"peak_phase", est.peak_phase},
        {"flops_per_token", flopsPerToken(config.model)},
        {"tiny", tiny}};
    std::cout << nlohmann::json{{"config", toJson(config)}, {"plan", plan}}.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "gpu_check_run: " << e.what() << "\n";
    return 2;
  }
}
