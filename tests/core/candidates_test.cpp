// Candidate runs of a ladder (what `suggest` ranks): grid runs not yet run, one more seed of each
// rung with a finished run, and the next larger sizes of a depth ladder, planned like the ladder's
// own rungs (the published growth ladder's recipe included).
#include "core/ladder/candidates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/ladder/memory_plan.h"
#include "core/ladder/size_extension.h"

using namespace deepladder;
using namespace deepladder::ladder;

namespace {

const char* kDepthLadder = R"(
[ladder]
name = "t"
seeds = [1]
[model]
seq_len = 32
[train]
batch_size = 4
[sizes]
depths = [2, 4, 6]
width_per_depth = 16
head_dim = 16
[budget]
rule = "tokens_per_param"
tokens_per_param = 10
[arms.vanilla]
[arms.wide]
sizes = ["d2", "d4"]
model = { mlp = "swiglu" }
)";

const CandidateRun* find(const std::vector<CandidateRun>& c, const std::string& name) {
  for (const auto& x : c)
    if (x.run.name == name) return &x;
  return nullptr;
}

}  // namespace

TEST(Candidates, GridRunsNotRunExtraSeedsAndLargerSizes) {
  const LadderSpec spec = parseLadder(kDepthLadder, "t.toml");
  ASSERT_EQ(spec.runs.size(), 5u);  // vanilla d2 d4 d6, wide d2 d4
  const std::vector<ExistingRun> existing = {{"vanilla", "d2", 1, RunStatus::kFinished},
                                             {"vanilla", "d4", 1, RunStatus::kRunning},
                                             {"wide", "d2", 1, RunStatus::kFailed},
                                             {"wide", "d4", 1, RunStatus::kQueued}};
  const auto c = candidateRuns(spec, existing, {});
  // Grid: vanilla d6 (never run), wide d2 (failed), wide d4 (queued: not yet run).
  for (const char* name : {"vanilla-d6-s1", "wide-d2-s1", "wide-d4-s1"}) {
    ASSERT_TRUE(find(c, name)) << name;
    EXPECT_EQ(find(c, name)->kind, CandidateKind::kGridRung) << name;
  }
  EXPECT_FALSE(find(c, "vanilla-d2-s1"));
  EXPECT_FALSE(find(c, "vanilla-d4-s1"));
  // One more seed of the finished rung only, at the rung's cost.
  const CandidateRun* seed = find(c, "vanilla-d2-s2");
  ASSERT_TRUE(seed);
  EXPECT_EQ(seed->kind, CandidateKind::kExtraSeed);
  EXPECT_EQ(seed->run.config.train.seed, 2);
  EXPECT_EQ(seed->run.config.name, "vanilla-d2-s2");
  EXPECT_DOUBLE_EQ(seed->run.flops, spec.runs[0].flops);
  EXPECT_FALSE(find(c, "vanilla-d4-s2"));
  // Larger sizes: the depth list continues by its step (8, 10); wide continues from its own d4.
  for (const char* name : {"vanilla-d8-s1", "vanilla-d10-s1", "wide-d6-s1", "wide-d8-s1"}) {
    ASSERT_TRUE(find(c, name)) << name;
    EXPECT_EQ(find(c, name)->kind, CandidateKind::kLargerSize) << name;
  }
  EXPECT_FALSE(find(c, "vanilla-d12-s1"));
  const CandidateRun* d8 = find(c, "vanilla-d8-s1");
  EXPECT_EQ(d8->run.config.model.n_layer, 8);
  EXPECT_EQ(d8->run.config.model.d_model, 128);
  EXPECT_GT(d8->run.flops, spec.runs[2].flops);  // deeper than d6
  EXPECT_GT(d8->run.est_seconds, 0);
  EXPECT_EQ(find(c, "wide-d6-s1")->run.config.model.mlp, MlpKind::swiglu);

  // An adaptive ladder buys nothing twice: not a queued run, nor one that failed.
  CandidateOptions adaptive;
  adaptive.queued_is_taken = true;
  const auto bought = candidateRuns(spec, existing, adaptive);
  EXPECT_FALSE(find(bought, "wide-d4-s1"));
  EXPECT_FALSE(find(bought, "wide-d2-s1"));
  EXPECT_TRUE(find(bought, "vanilla-d6-s1"));
}

TEST(Candidates, ABoughtLargerSizeMovesTheNextOnesOut) {
  const LadderSpec spec = parseLadder(kDepthLadder, "t.toml");
  const std::vector<ExistingRun> existing = {{"vanilla", "d8", 1, RunStatus::kFinished}};
  const auto c = candidateRuns(spec, existing, {});
  EXPECT_FALSE(find(c, "vanilla-d8-s1"));
  EXPECT_TRUE(find(c, "vanilla-d10-s1"));
  EXPECT_TRUE(find(c, "vanilla-d12-s1"));
  ASSERT_TRUE(find(c, "vanilla-d8-s2")) << "more seeds of the bought size";
  EXPECT_EQ(find(c, "vanilla-d8-s2")->kind, CandidateKind::kExtraSeed);
}

TEST(Candidates, AnExplicitSizeListHasNoLargerSizes) {
  const char* text = R"(
[ladder]
name = "e"
[model]
seq_len = 32
[train]
batch_size = 4
[sizes]
list = [ { name = "s", d_model = 32, n_layer = 1, n_head = 2 } ]
[budget]
rule = "tokens"
tokens = 1000
)";
  EXPECT_TRUE(largerSizeRuns(parseLadder(text, "e.toml"), 2).empty());
}

TEST(Candidates, ThePublishedGrowthLadderContinuesWithItsRecipe) {
  LadderSpec spec =
      loadLadder(std::string(DEEPLADDER_SOURCE_DIR) + "/resources/ladders/growth-fineweb.toml");
  // At the ladder's own 80 GB devices, a rung that cannot fit even at micro-batch 1 is left out.
  const auto at_80 = largerSizeRuns(spec, 1);
  for (const auto& r : at_80) EXPECT_LE(r.peak_memory_gb, 80 * kUsableFraction) << r.name;
  // Without a device limit every arm continues.
  spec.resources.device_memory_gb = 0;
  const auto larger = largerSizeRuns(spec, 1);
  EXPECT_LT(at_80.size(), larger.size());
  // One size past each arm's largest: d22 for the arms that reach d20, d20 for the others.
  std::map<std::string, std::string> next;
  for (const auto& r : larger) next[r.arm] = r.size;
  EXPECT_EQ(next.at("vanilla"), "d22");
  EXPECT_EQ(next.at("untied_grow"), "d20");
  for (const auto& r : larger) {
    const auto top = std::max_element(
        spec.runs.begin(), spec.runs.end(), [&](const PlannedRun& a, const PlannedRun& b) {
          return (a.arm == r.arm ? a.flops : 0) < (b.arm == r.arm ? b.flops : 0);
        });
    EXPECT_GT(r.flops, top->flops) << r.name;
    EXPECT_EQ(r.config.train.optimizer, OptimizerKind::muon) << r.name;  // the recipe, not defaults
  }
  // A growth arm keeps growing: its crossover carries over from its deepest size.
  for (const auto& r : larger)
    if (r.arm == "untied_grow") {
      EXPECT_GE(r.crossover_step, 0);
    }
}
