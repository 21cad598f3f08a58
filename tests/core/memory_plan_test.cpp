// The memory plan (core/ladder/memory_plan.h) as parseLadder applies it: the largest divisor
// micro-batch that fits resources.device_memory_gb is picked and written into the run's config;
// a fixed micro-batch that does not fit, or a run that fits at no micro-batch, is refused with
// the reason and what would make it fit; time estimates from peak x MFU and from measured
// tokens/s; the depth-sweep ladders parse and plan; growth-fineweb fits its 80 GB GPUs.
#include "core/ladder/memory_plan.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/memory_model.h"

using namespace deepladder;
using namespace deepladder::ladder;

namespace {

// A one-run ladder whose activations dominate: d 256 x 8 layers, T 4096, batch 16.
std::string ladderText(const std::string& resources, const std::string& train = "") {
  return R"(
[ladder]
name = "m"
[model]
d_model = 256
n_layer = 8
n_head = 4
seq_len = 4096
[train]
batch_size = 16
)" + train +
         R"(
[[sizes.list]]
name = "s"
d_model = 256
[budget]
rule = "tokens"
tokens = 1e6
[resources]
)" + resources;
}

RunConfig planned(const std::string& train = "") {
  return parseLadder(ladderText("", train), "m.toml").runs.at(0).config;
}

std::string refusal(const std::string& text) {
  try {
    parseLadder(text, "m.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

std::string gb(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", bytes / 1e9);
  return text;
}

}  // namespace

TEST(MemoryPlan, WithoutADeviceSizeItEstimatesTheWholeBatch) {
  const LadderSpec spec = parseLadder(ladderText(""), "m.toml");
  const PlannedRun& run = spec.runs.at(0);
  EXPECT_EQ(run.micro_batch, 16);
  EXPECT_EQ(run.config.train.micro_batch, 0);
  EXPECT_NEAR(run.peak_memory_gb * 1e9,
              estimateMemory(run.config, 0, memoryModelOptionsFor(run.config)).peak, 1.0);
}

TEST(MemoryPlan, PicksTheLargestMicroBatchThatFits) {
  const RunConfig c = planned();
  const MemoryModelOptions o = memoryModelOptionsFor(c);
  const double four = estimateMemory(c, 4, o).peak, eight = estimateMemory(c, 8, o).peak;
  ASSERT_LT(four, eight);
  const double device = (four + eight) / 2 / kUsableFraction;  // 4 fits, 8 does not
  const LadderSpec spec =
      parseLadder(ladderText("device_memory_gb = " + gb(device) + "\n"), "m.toml");
  const PlannedRun& run = spec.runs.at(0);
  EXPECT_EQ(run.micro_batch, 4);
  EXPECT_EQ(run.config.train.micro_batch, 4);  // the worker trains with it
  EXPECT_LE(run.peak_memory_gb * 1e9, kUsableFraction * device);
  // A device that holds the whole batch leaves the config alone.
  const LadderSpec roomy = parseLadder(ladderText("device_memory_gb = 1000\n"), "m.toml");
  EXPECT_EQ(roomy.runs.at(0).micro_batch, 16);
  EXPECT_EQ(roomy.runs.at(0).config.train.micro_batch, 0);
}

TEST(MemoryPlan, RefusesARunThatCannotFitAndSaysWhatWouldMakeItFit) {
  const RunConfig c = planned();
  const MemoryModelOptions o = memoryModelOptionsFor(c);
  RunConfig checkpointed = c;
  checkpointed.train.activation_checkpointing = ActivationCheckpointing::every_k;
  const double plain_one = estimateMemory(c, 1, o).peak;
  const double checkpointed_one = estimateMemory(checkpointed, 1, o).peak;
  ASSERT_LT(checkpointed_one, plain_one);
  // Nothing fits without checkpointing, but checkpointing fits at micro-batch 1 or more.
  const double device = (checkpointed_one + plain_one) / 2 / kUsableFraction;
  const std::string e = refusal(ladderText("device_memory_gb = " + gb(device) + "\n"));
  EXPECT_NE(e.find("m.toml"), std::string::npos) << e;
  EXPECT_NE(e.find("run vanilla-s-s1 does not fit"), std::string::npos) << e;
  EXPECT_NE(e.find("resources.device_memory_gb"), std::string::npos) << e;
  EXPECT_NE(e.find("activations"), std::string::npos) << e;  // the terms, so one sees why
  EXPECT_NE(e.find("activation_checkpointing = \"every_k\" (fits at micro-batch"),
            std::string::npos)
      << e;
  // On the CPU bf16 autocast runs the unfused composition, which keeps more than the fused fp32
  // ops: no help there.
  EXPECT_EQ(e.find("precision = \"bf16\""), std::string::npos) << e;
  EXPECT_NE(e.find("a device with at least"), std::string::npos) << e;
  // On a GPU bf16 halves the activations, and the refusal says so.
  const RunConfig gpu = planned("device = \"cuda\"\n");
  RunConfig gpu_bf16 = gpu;
  gpu_bf16.train.precision = Precision::bf16;
  const MemoryModelOptions gpu_options = memoryModelOptionsFor(gpu);
  const double gpu_plain = estimateMemory(gpu, 1, gpu_options).peak;
  const double gpu_half = estimateMemory(gpu_bf16, 1, gpu_options).peak;
  ASSERT_LT(gpu_half, gpu_plain);
  const std::string g = refusal(
      ladderText("device_memory_gb = " + gb((gpu_half + gpu_plain) / 2 / kUsableFraction) + "\n",
                 "device = \"cuda\"\n"));
  EXPECT_NE(g.find("set train.precision = \"bf16\" (fits at micro-batch"), std::string::npos) << g;

  // A device smaller than the weights and optimizer state: only a bigger device helps.
  const std::string tiny = refusal(ladderText("device_memory_gb = 0.01\n"));
  EXPECT_NE(tiny.find("does not fit"), std::string::npos) << tiny;
  EXPECT_NE(tiny.find("a device with at least 2 GB"), std::string::npos) << tiny;

  // A fixed micro-batch that is too large is refused with the one that fits.
  const double four = estimateMemory(c, 4, o).peak, eight = estimateMemory(c, 8, o).peak;
  const std::string fixed =
      refusal(ladderText("device_memory_gb = " + gb((four + eight) / 2 / kUsableFraction) + "\n",
                         "micro_batch = 8\n"));
  EXPECT_NE(fixed.find("at micro-batch 8"), std::string::npos) << fixed;
  EXPECT_NE(fixed.find("train.micro_batch = 0 to let the plan pick (fits at micro-batch 4"),
            std::string::npos)
      << fixed;
}

TEST(MemoryPlan, TimeFromPeakTimesMfuAndFromMeasuredTokensPerSecond) {
  Resources r;
  EXPECT_DOUBLE_EQ(assumedThroughput(r, Precision::fp32), kDefaultThroughputFlops);
  r.peak_flops = 1e15;
  r.mfu = 0.5;
  EXPECT_DOUBLE_EQ(assumedThroughput(r, Precision::bf16), 5e14);
  EXPECT_DOUBLE_EQ(assumedThroughput(r, Precision::fp32), 1e15 / 16 * 0.5);
  r.fp32_peak_flops = 1e14;
  EXPECT_DOUBLE_EQ(assumedThroughput(r, Precision::fp32), 5e13);
  r.throughput_flops = 3e12;  // an explicit sustained rate wins
  EXPECT_DOUBLE_EQ(assumedThroughput(r, Precision::bf16), 3e12);

  LadderSpec spec = parseLadder(
      ladderText("peak_flops = 1e15\nmfu = 0.25\n", "precision = \"bf16\"\nranks = 2\n"), "m.toml");
  PlannedRun& run = spec.runs.at(0);
  EXPECT_DOUBLE_EQ(run.est_seconds, run.flops / (2.5e14 * 2));
  EXPECT_FALSE(run.time_measured);
  std::map<std::string, double> measured{{throughputShapeKey(run.config), 5000.0}};
  applyMeasuredThroughput(spec, measured);
  EXPECT_TRUE(run.time_measured);
  EXPECT_DOUBLE_EQ(run.est_seconds, static_cast<double>(run.tokens) / 5000.0);
  // Another shape (more layers) keeps its assumed time.
  RunConfig deeper = run.config;
  deeper.model.n_layer = 9;
  EXPECT_NE(throughputShapeKey(deeper), throughputShapeKey(run.config));
  RunConfig other_seed = run.config;
  other_seed.train.seed = 99;
  other_seed.train.lr = 1e-4;
  EXPECT_EQ(throughputShapeKey(other_seed), throughputShapeKey(run.config));
}

TEST(MemoryPlan, DepthSweepLaddersParseAndPlan) {
  for (const std::string file : {"depth-sweep.toml", "depth-sweep-cpu.toml"}) {
    const LadderSpec spec =
        loadLadder(std::string(DEEPLADDER_SOURCE_DIR) + "/resources/ladders/" + file);
    const bool cpu = file == "depth-sweep-cpu.toml";
    const std::vector<int64_t> depths = cpu ? std::vector<int64_t>{4, 8, 16, 32, 64, 128, 256}
                                            : std::vector<int64_t>{4, 8, 16, 32, 64, 128};
    EXPECT_EQ(spec.arms, (std::vector<std::string>{"vanilla", "operator_8"})) << file;
    ASSERT_EQ(spec.runs.size(), 2 * depths.size()) << file;
    for (size_t i = 0; i < spec.runs.size(); ++i) {
      const PlannedRun& run = spec.runs[i];
      const ModelConfig& m = run.config.model;
      EXPECT_EQ(m.n_layer, depths[i % depths.size()]) << run.name;
      EXPECT_EQ(m.d_model, cpu ? 32 : 1024) << run.name;  // fixed width
      EXPECT_EQ(m.boundary_every, run.arm == "operator_8" ? 8 : 0) << run.name;
      EXPECT_GT(run.peak_memory_gb, 0) << run.name;
      EXPECT_GE(run.micro_batch, 1) << run.name;
      if (!cpu) {
        EXPECT_NEAR(static_cast<double>(run.tokens), 1e9, 0.001e9) << run.name;
        EXPECT_LE(run.peak_memory_gb, 0.9 * 80) << run.name;  // fits the H100s it names
        EXPECT_EQ(run.config.train.precision, Precision::bf16);
      }
    }
  }
}

TEST(MemoryPlan, GrowthFinewebFitsItsEightyGigabyteGpus) {
  const LadderSpec spec =
      loadLadder(std::string(DEEPLADDER_SOURCE_DIR) + "/resources/ladders/growth-fineweb.toml");
  double seconds = 0;
  for (const PlannedRun& run : spec.runs) {
    EXPECT_LE(run.peak_memory_gb, 0.9 * 80) << run.name;
    EXPECT_GE(run.micro_batch, 1) << run.name;
    EXPECT_EQ(run.config.train.batch_size % run.micro_batch, 0) << run.name;
    seconds += run.est_seconds;
  }
  // 989 TFLOP/s x 40%: the whole ladder is some hundreds of GPU-hours, not the ~6x fewer the old
  // fp32-peak-exceeding 4e14 FLOP/s claimed.
  EXPECT_GT(seconds / 3600, 100.0);
}
