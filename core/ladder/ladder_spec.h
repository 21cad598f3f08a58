// A scaling ladder: arms (architecture/training overrides) x sizes x seeds, with a budget rule
// that turns each rung into a token count, and the resources to run it on. Read from a TOML file
// (validated; every error names file, line and key) and expanded into one planned run per cell.
//
//   [ladder]     name, task ("lm" | "squaring"), seeds = [..], description
//   [model]      ModelConfig defaults for every run          [data]  DataConfig
//   [train]      TrainConfig defaults (batch, lr, schedule, eval and checkpoint cadence)
//   [sizes]      explicit: [[sizes.list]] name, d_model, n_layer, n_head (+ any model key)
//                depth ladder: depths = [..], width_per_depth = 64 (or a fixed width = 512),
//                head_dim = 32
//   [budget]     rule = "tokens" (tokens = N) | "tokens_per_param" (ratio = 20)
//                     | "flops" (flops = X or [per rung])
//   [arms.NAME]  preset = "untied_grow" (default: NAME when it names a preset, see
//                core/architecture.h), model = {...}, train = {...} overrides
//   [sweep]      run options and their values, e.g. train.lr_mult = [0.25, 0.5, 1, 2]: every
//                (arm, size, seed) runs once per point of their product (core/ladder/sweep.h);
//                [arms.NAME.sweep] replaces the list of an option it names, for that arm;
//                stop = "halving" (stop_fractions) stops losing points early (sweep_stop.h)
//   [resources]  backend = "local"|"slurm", devices = "auto"|"cpu"|"0,1", slots, threads_per_slot,
//                retries, heartbeat_timeout_s, peer_timeout_s, device_memory_gb (for the memory
//                plan), throughput_flops or peak_flops / fp32_peak_flops x mfu (for time
//                estimates; core/ladder/memory_plan.h), [resources.slurm]
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/ladder/run_plan.h"
#include "core/ladder/sweep.h"
#include "core/ladder/sweep_stop.h"
#include "core/memory_model.h"
#include "core/run_config.h"

namespace deepladder::ladder {

struct SlurmOptions {
  std::string partition;
  std::string time_limit = "04:00:00";
  int64_t cpus_per_task = 1;
  int64_t gpus_per_task = 0;
  std::string workdir;             // shared directory for job scripts and protocol files
  std::vector<std::string> extra;  // more sbatch options, each "--key=value"
};

struct Resources {
  std::string backend = "local";  // "local" or "slurm"
  std::string devices = "auto";   // "auto" (GPUs if any, else CPU slots), "cpu", or "0,1,3"
  int64_t slots = 0;              // CPU slots; 0 = one per 2 cores (at least 1)
  int64_t threads_per_slot = 0;   // 0 = cores / slots
  int64_t retries = 2;            // attempts after the first, from the last checkpoint
  double heartbeat_timeout_s = 300;
  // Data-parallel runs (train.ranks > 1): when a rank dies or hangs, the others give up after
  // this many seconds without an answer (DEEPLADDER_DIST_TIMEOUT_S for the workers).
  double peer_timeout_s = 300;
  // Time estimates (memory_plan.h): throughput_flops when > 0 (sustained training FLOP/s of one
  // slot), else the device's dense peak for the run's precision x mfu.
  double throughput_flops = 0;
  double peak_flops = 0;       // bf16 dense peak of one device (989e12 for an H100 SXM)
  double fp32_peak_flops = 0;  // fp32 peak (0: peak_flops / 16, about a GPU's ratio without TF32)
  double mfu = 0.4;            // assumed model FLOP utilization
  // Memory of one slot's device in GB (1e9 bytes); 0 = the device's own size when the scheduler
  // knows it (a local GPU, or the machine's memory shared by the CPU slots), else no check.
  double device_memory_gb = 0;
  SlurmOptions slurm;
};

// One cell of the grid: its identity, its complete config and its plan (the RunPlan fields,
// stored with the run when it is queued).
struct PlannedRun : RunPlan {
  std::string arm;
  std::string size;
  int64_t seed = 0;
  std::string name;         // arm-size-sSEED, then -LABEL for a sweep point (sweepRunName)
  std::string sweep_label;  // the sweep point's label ("lr_mult0.5"); "" without a sweep
  // The point's values: (qualified option key, value), in the arm's sweep order.
  std::vector<std::pair<std::string, options::OptionValue>> sweep_point;
  RunConfig config;  // complete config handed to the worker
  // Planning figures not stored with the run (the stored ones are RunPlan's).
  bool time_measured = false;  // est_seconds from a measured run of the same shape
  int64_t micro_batch = 0;     // rows per forward on each rank (the plan's pick or the config's)
  double peak_memory_gb = 0;   // estimated peak device memory (GB = 1e9 bytes) at micro_batch
  MemoryEstimate memory;       // its terms (core/memory_model.h)
};

struct LadderSpec {
  std::string name;
  std::string task = "lm";
  std::string description;
  std::string source;  // file path (for messages)
  std::string text;    // the file's text, stored with the ladder
  std::string hash;    // of the parsed content (ladder_identity.h): a changed spec is a new ladder
  std::vector<int64_t> seeds;
  std::vector<std::string> arms;
  std::vector<std::string> sizes;
  Resources resources;
  std::map<std::string, Sweep> sweeps;  // each arm's sweep (empty: none), by arm
  SweepStop sweep_stop;                 // [sweep] stop = "halving" (core/ladder/sweep_stop.h)
  std::vector<PlannedRun> runs;         // arms x sizes x sweep points x seeds, in that order
  // What planning changed of what the file says, one line each ("ladder.toml:12:
  // train.warmup_steps = 500 is more than a fifth of ..."); `run` and `plan` print them.
  std::vector<std::string> warnings;
};

// More runs than this in one ladder is refused when it is read (a slip such as seeds = [1..1e6]).
inline constexpr int64_t kMaxLadderRuns = 10000;

LadderSpec loadLadder(const std::string& path);
LadderSpec parseLadder(const std::string& text, const std::string& source_name);

}  // namespace deepladder::ladder
