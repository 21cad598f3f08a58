// [sweep] stop = "halving" (core/ladder/sweep_stop.h): read with its default and given fractions,
// and refused, at the key, when misspelt, out of range, out of order, without halving or in an
// arm's sweep.
#include "core/ladder/sweep_stop.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"

using namespace deepladder;
using namespace deepladder::ladder;

namespace {

std::string ladderWith(const std::string& tail) {
  return R"(
[ladder]
name = "t"
seeds = [1]
[model]
seq_len = 32
[train]
batch_size = 4
[sizes]
depths = [2, 3]
width_per_depth = 32
head_dim = 16
[budget]
rule = "tokens"
tokens = 2048
)" + tail;
}

std::string errorOf(const std::string& text) {
  try {
    parseLadder(text, "ladder.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SweepStop, HalvingWithTheDefaultFractionsAndTheSweepStillExpands) {
  const LadderSpec spec = parseLadder(ladderWith(R"(
[arms.vanilla]
[sweep]
stop = "halving"
train.lr_mult = [0.5, 1, 2]
)"),
                                      "ladder.toml");
  EXPECT_TRUE(spec.sweep_stop.halving);
  EXPECT_EQ(spec.sweep_stop.fractions, (std::vector<double>{0.25, 0.5, 0.75}));
  EXPECT_EQ(spec.runs.size(), 2u * 3u);
}

TEST(SweepStop, NoStopByDefaultAndGivenFractionsKept) {
  EXPECT_FALSE(
      parseLadder(ladderWith("[arms.vanilla]\n[sweep]\ntrain.lr_mult = [1, 2]\n"), "ladder.toml")
          .sweep_stop.halving);
  const LadderSpec spec = parseLadder(
      ladderWith("[arms.vanilla]\n[sweep]\nstop = \"halving\"\nstop_fractions = [0.3, 0.6]\n"
                 "train.lr_mult = [1, 2]\n"),
      "ladder.toml");
  EXPECT_EQ(spec.sweep_stop.fractions, (std::vector<double>{0.3, 0.6}));
}

TEST(SweepStop, RefusesBadPoliciesAndFractionsAtTheirKey) {
  EXPECT_NE(
      errorOf(ladderWith("[sweep]\nstop = \"halve\"\ntrain.lr_mult = [1, 2]\n")).find("sweep.stop"),
      std::string::npos);
  EXPECT_NE(errorOf(ladderWith("[sweep]\nstop = \"halving\"\nstop_fractions = [0.5, 1.0]\n"
                               "train.lr_mult = [1, 2]\n"))
                .find("(0, 1)"),
            std::string::npos);
  EXPECT_NE(errorOf(ladderWith("[sweep]\nstop = \"halving\"\nstop_fractions = [0.5, 0.25]\n"
                               "train.lr_mult = [1, 2]\n"))
                .find("ascend"),
            std::string::npos);
  EXPECT_NE(errorOf(ladderWith("[sweep]\nstop_fractions = [0.5]\ntrain.lr_mult = [1, 2]\n"))
                .find("halving"),
            std::string::npos);
  EXPECT_NE(errorOf(ladderWith("[sweep]\ntrain.lr_mult = [1, 2]\n[arms.vanilla]\n"
                               "[arms.vanilla.sweep]\nstop = \"halving\"\n"))
                .find("the ladder's"),
            std::string::npos);
}

TEST(SweepStop, HalvedRunsValidateAtTheStopFractionsBesideTheirOwn) {
  const LadderSpec halved = parseLadder(
      ladderWith("[arms.vanilla]\n[sweep]\nstop = \"halving\"\nstop_fractions = [0.3, 0.6]\n"
                 "train.lr_mult = [1, 2]\n"),
      "ladder.toml");
  for (const PlannedRun& run : halved.runs) EXPECT_EQ(run.config.train.eval_at, "0.3,0.6");
  const LadderSpec own = parseLadder(
      ladderWith("[arms.vanilla]\n[arms.vanilla.train]\neval_at = \"0.6, 0.9\"\n[sweep]\n"
                 "stop = \"halving\"\nstop_fractions = [0.3, 0.6]\ntrain.lr_mult = [1, 2]\n"),
      "ladder.toml");
  for (const PlannedRun& run : own.runs) EXPECT_EQ(run.config.train.eval_at, "0.3,0.6,0.9");
  const LadderSpec unhalved =
      parseLadder(ladderWith("[arms.vanilla]\n[sweep]\ntrain.lr_mult = [1, 2]\n"), "ladder.toml");
  for (const PlannedRun& run : unhalved.runs) EXPECT_EQ(run.config.train.eval_at, "");
}

TEST(SweepStop, AMalformedEvalAtIsNamedWithTheLadderFile) {
  const std::string error =
      errorOf(ladderWith("[arms.vanilla]\n[arms.vanilla.train]\neval_at = \"0.5, 1.5\"\n[sweep]\n"
                         "stop = \"halving\"\ntrain.lr_mult = [1, 2]\n"));
  EXPECT_NE(error.find("train.eval_at"), std::string::npos) << error;
  EXPECT_NE(error.find("ladder.toml"), std::string::npos) << error;
}
