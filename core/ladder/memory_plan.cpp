// Micro-batch choice, the fit check and time estimates of planned runs (see memory_plan.h).
#include "core/ladder/memory_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <variant>
#include <vector>

#include "core/errors.h"
#include "core/options/option_schema.h"

namespace deepladder::ladder {

namespace {

std::string gbText(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
  return text;
}

// Divisors of `rows`, largest first: equal micro-batches, the largest that fits.
std::vector<int64_t> divisorsDescending(int64_t rows) {
  std::vector<int64_t> out;
  for (int64_t d = rows; d >= 1; --d)
    if (rows % d == 0) out.push_back(d);
  return out;
}

// The largest divisor micro-batch at which `config` fits `usable` bytes, or nullopt.
std::optional<MemoryEstimate> largestFitting(const RunConfig& config, double usable) {
  const MemoryModelOptions options = memoryModelOptionsFor(config);
  const int64_t rows = config.train.batch_size / std::max<int64_t>(1, config.train.ranks);
  for (int64_t m : divisorsDescending(rows)) {
    const MemoryEstimate est = estimateMemory(config, m, options);
    if (est.peak <= usable) return est;
  }
  return std::nullopt;
}

[[noreturn]] void refuse(const PlannedRun& run, const MemoryEstimate& est,
                         const DeviceBudget& budget, double usable) {
  const RunConfig& c = run.config;
  std::string why = "run " + run.name + " does not fit: at micro-batch " +
                    std::to_string(est.micro_batch) + " its estimated peak is " + gbText(est.peak) +
                    " (" + describeMemory(est) + "), but " + budget.source + " leaves " +
                    gbText(usable) + " usable (" +
                    std::to_string(static_cast<int>(kUsableFraction * 100)) + "%)";
  std::vector<std::string> fixes;
  auto tryFix = [&](RunConfig changed, const std::string& what) {
    changed.train.micro_batch = 0;
    if (const auto fit = largestFitting(changed, usable))
      fixes.push_back(what + " (fits at micro-batch " + std::to_string(fit->micro_batch) + ", " +
                      gbText(fit->peak) + ")");
  };
  if (c.train.micro_batch > 0) tryFix(c, "set train.micro_batch = 0 to let the plan pick");
  const bool checkpointing = c.train.activation_checkpointing != ActivationCheckpointing::none;
  RunConfig every_k = c;
  every_k.train.activation_checkpointing = ActivationCheckpointing::every_k;
  every_k.train.activation_checkpointing_k = 0;
  if (!checkpointing) tryFix(every_k, "set train.activation_checkpointing = \"every_k\"");
  RunConfig bf16 = c;
  bf16.train.precision = Precision::bf16;
  if (c.train.precision == Precision::fp32) tryFix(bf16, "set train.precision = \"bf16\"");
  RunConfig both = every_k;
  both.train.precision = Precision::bf16;
  if (fixes.empty() && (!checkpointing || c.train.precision == Precision::fp32))
    tryFix(both, "set train.precision = \"bf16\" and activation_checkpointing = \"every_k\"");
  const MemoryEstimate floor = estimateMemory(both, 1, memoryModelOptionsFor(both));
  const double need_gb = std::ceil(std::min(est.peak, floor.peak) / kUsableFraction / 1e9);
  fixes.push_back("use a device with at least " + std::to_string(static_cast<int64_t>(need_gb)) +
                  " GB (resources.device_memory_gb)");
  if (floor.weights + floor.gradients + floor.optimizerState() > usable)
    fixes.push_back(
        "more data-parallel ranks do not help: every rank holds the whole model, its gradients "
        "and its optimizer state");
  std::string hint;
  for (size_t i = 0; i < fixes.size(); ++i) hint += (i ? "; or " : "") + fixes[i];
  throw UserError(why + ". To make it fit: " + hint);
}

}  // namespace

DeviceBudget budgetFromResources(const Resources& resources) {
  DeviceBudget budget;
  if (resources.device_memory_gb > 0) {
    budget.bytes = resources.device_memory_gb * 1e9;
    char text[96];
    std::snprintf(text, sizeof text, "resources.device_memory_gb = %g", resources.device_memory_gb);
    budget.source = text;
  }
  return budget;
}

void planMemory(PlannedRun& run, const DeviceBudget& budget) {
  RunConfig& c = run.config;
  const MemoryModelOptions options = memoryModelOptionsFor(c);
  const int64_t rows = c.train.batch_size / std::max<int64_t>(1, c.train.ranks);
  MemoryEstimate est = estimateMemory(c, c.train.micro_batch, options);
  if (budget.bytes > 0) {
    const double usable = kUsableFraction * budget.bytes;
    if (c.train.micro_batch == 0) {
      const auto fit = largestFitting(c, usable);
      if (!fit) refuse(run, estimateMemory(c, 1, options), budget, usable);
      est = *fit;
      if (est.micro_batch < rows) c.train.micro_batch = est.micro_batch;
    } else if (est.peak > usable) {
      refuse(run, est, budget, usable);
    }
  }
  run.memory = est;
  run.micro_batch = est.micro_batch;
  run.peak_memory_gb = est.peak / 1e9;
}

void planMemory(LadderSpec& spec, const DeviceBudget& budget) {
  for (PlannedRun& run : spec.runs) planMemory(run, budget);
}

double assumedThroughput(const Resources& r, Precision precision) {
  if (r.throughput_flops > 0) return r.throughput_flops;
  const double peak = precision == Precision::bf16
                          ? r.peak_flops
                          : (r.fp32_peak_flops > 0 ? r.fp32_peak_flops : r.peak_flops / 16);
  if (peak > 0) return peak * r.mfu;
  return kDefaultThroughputFlops;
}

void planTime(PlannedRun& run, const Resources& resources) {
  // The P ranks of a data-parallel run share its FLOPs.
  run.est_seconds = run.flops / (assumedThroughput(resources, run.config.train.precision) *
                                 static_cast<double>(run.config.train.ranks));
  run.time_measured = false;
}

std::string throughputShapeKey(const RunConfig& c) {
  // Every option the schema marks kShape that the run's task honours (the task among them: a
  // squaring run's speed says nothing of a language model's), by qualified key.
  nlohmann::json key = nlohmann::json::object();
  for (const options::OptionSpec& spec : options::runOptionSchema()) {
    if ((spec.flags & options::kShape) == 0 || !spec.honouredBy(c.task)) continue;
    std::visit([&](const auto& value) { key[spec.qualifiedKey()] = value; }, spec.get(c));
  }
  // One shape for every GPU of a kind: cuda:0 and cuda:1 run alike.
  if (c.train.device.rfind("cuda", 0) == 0) key["train.device"] = "cuda";
  return key.dump();
}

void applyMeasuredThroughput(LadderSpec& spec, const std::map<std::string, double>& tokens_per_s) {
  for (PlannedRun& run : spec.runs) {
    const auto found = tokens_per_s.find(throughputShapeKey(run.config));
    if (found == tokens_per_s.end() || !(found->second > 0)) continue;
    run.est_seconds = static_cast<double>(run.tokens) / found->second;
    run.time_measured = true;
  }
}

}  // namespace deepladder::ladder
