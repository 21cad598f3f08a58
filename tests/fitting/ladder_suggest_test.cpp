// Suggestions for a ladder with a sweep (fitting/ladder_suggest.h): scored on the envelope, so the
// other sweep points of a rung are not taken for its seeds; a rung whose best point is at an edge
// asks first for the point past it; an extra seed repeats the point the rung's fit uses.
#include "fitting/ladder_suggest.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/ladder/ladder_spec.h"

using namespace deepladder;
using namespace deepladder::fitting;

TEST(LadderSuggest, ScoresTheEnvelopeAndAsksPastAnEdgeFirst) {
  const ladder::LadderSpec spec = ladder::parseLadder(R"(
[ladder]
name = "t"
seeds = [1]
[model]
seq_len = 32
[train]
batch_size = 4
[sizes]
depths = [2, 4, 6, 8]
width_per_depth = 16
head_dim = 16
[budget]
rule = "tokens_per_param"
tokens_per_param = 10
[sweep]
train.lr_mult = [0.5, 1]
[arms.vanilla]
[arms.wide]
model = { mlp = "swiglu" }
)",
                                                      "t.toml");
  ASSERT_EQ(spec.runs.size(), 2u * 4u * 2u);
  // Losses on a law in compute; lr_mult 1 is better by 0.05 everywhere but vanilla d2, where
  // lr_mult 0.5 (the smallest tried) is.
  ResultsTable results;
  results.source = "t";
  std::vector<ladder::ExistingRun> existing;
  for (const auto& run : spec.runs) {
    RunPoint p;
    p.arm = run.arm;
    p.size = run.size;
    p.seed = run.seed;
    p.compute_flops = run.flops;
    p.sweep = run.sweep_label;
    const bool better = (run.arm == "vanilla" && run.size == "d2") == (p.sweep == "lr_mult0.5");
    p.val_loss = 1.5 + (run.arm == "wide" ? 0.9 : 1.0) * std::pow(run.flops / 1e12, -0.1) +
                 (better ? 0.0 : 0.05);
    results.points.push_back(p);
    existing.push_back({run.arm, run.size, run.seed, RunStatus::kFinished, run.sweep_label});
  }
  SuggestOptions o = defaultSuggestOptions();
  o.fit.bootstrap = 20;
  o.draws = 2;
  const SuggestResult r = suggestLadderRuns(results, spec, existing, {}, o);
  EXPECT_EQ(r.seed_dof, 0) << "sweep points of a rung are not its seeds";
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_EQ(r.ranked.front().candidate.run.name, "vanilla-d2-s1-lr_mult0.25");
  EXPECT_EQ(r.ranked.front().candidate.kind, ladder::CandidateKind::kSweepExtension);
  int extra_seeds = 0;
  for (const auto& s : r.ranked)
    if (s.candidate.kind == ladder::CandidateKind::kExtraSeed) {
      ++extra_seeds;
      const bool edge_rung = s.candidate.run.arm == "vanilla" && s.candidate.run.size == "d2";
      EXPECT_EQ(s.candidate.run.sweep_label, edge_rung ? "lr_mult0.5" : "lr_mult1")
          << s.candidate.run.name;
    }
  EXPECT_EQ(extra_seeds, 8);
}
