// The memory and time side of a planned run. Memory: core/memory_model.h's estimate of the run's
// peak device memory; when the device's size is known (resources.device_memory_gb, or what the
// scheduler finds on this machine: core/scheduler/device_memory.h) the plan picks the largest
// micro-batch that fits (train.micro_batch = 0: a divisor of the rows each rank trains on), checks
// a micro-batch the ladder fixed, or refuses the run with the reason and what would make it fit.
// A run fits when its estimated peak is at most kUsableFraction of the device memory (the rest
// is the allocator's fragmentation and what the estimate leaves out).
//
// Time: a run's wall time is its FLOPs over the per-device throughput x its ranks, where the
// throughput is resources.throughput_flops when the ladder sets it, else the device's peak for
// the run's precision (peak_flops for bf16, fp32_peak_flops for fp32) x resources.mfu; once a
// run of the same shape has run (same cost per token: throughputShapeKey), its measured tokens/s
// replace the assumption (applyMeasuredThroughput, from the database `plan --db` reads).
#pragma once

#include <map>
#include <string>

#include "core/ladder/ladder_spec.h"

namespace deepladder::ladder {

inline constexpr double kUsableFraction = 0.9;
inline constexpr double kDefaultThroughputFlops = 2e10;  // neither throughput nor peak given

struct DeviceBudget {
  double bytes = 0;    // device memory of one slot; 0 = unknown (estimate only, no check)
  std::string source;  // where the size came from, for messages
};

// resources.device_memory_gb as a budget (unknown when 0).
DeviceBudget budgetFromResources(const Resources& resources);

// Fills run.memory, run.micro_batch and run.peak_memory_gb; with a known budget picks or checks
// the micro-batch (writing a picked one into run.config.train.micro_batch when it is smaller than
// the rank's rows). Throws UserError naming the run, the estimate, and what would make it fit.
void planMemory(PlannedRun& run, const DeviceBudget& budget);
// The same for every run of a ladder.
void planMemory(LadderSpec& spec, const DeviceBudget& budget);

// Assumed training FLOP/s of one device for a run of `precision` (see above).
double assumedThroughput(const Resources& resources, Precision precision);
// run.est_seconds from the assumed throughput.
void planTime(PlannedRun& run, const Resources& resources);

// Runs with equal keys cost the same per token on the same kind of device: the task and every
// option the schema marks kShape (core/options/run_options.h) that the task honours.
std::string throughputShapeKey(const RunConfig& config);
// Replaces est_seconds by tokens / measured tokens per second for every run whose shape key has a
// measurement (key -> tokens/s over all ranks); marks them run.time_measured.
void applyMeasuredThroughput(LadderSpec& spec, const std::map<std::string, double>& tokens_per_s);

}  // namespace deepladder::ladder
