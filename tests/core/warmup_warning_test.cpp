// A ladder's rungs too short for the warmup the file asks for: the warmup is cut to a fifth of the
// rung's steps (as before), and LadderSpec::warnings says so, naming the file, line and key; a
// default warmup cut the same way is no news to the user and stays silent.
#include <gtest/gtest.h>

#include <string>

#include "core/ladder/ladder_spec.h"

using namespace deepladder::ladder;

namespace {

// 1,000 tokens a run at 128 tokens a step: 8 steps, so at most 1 warmup step.
std::string shortLadder(const std::string& train_extra) {
  return R"(
[ladder]
name = "short"
[model]
seq_len = 32
[train]
batch_size = 4
)" + train_extra +
         R"(
[sizes]
depths = [2]
width_per_depth = 32
head_dim = 16
[budget]
rule = "tokens"
tokens = 1000
)";
}

TEST(WarmupWarning, AWarmupSetInTheFileAndCutIsWarnedAbout) {
  const LadderSpec spec = parseLadder(shortLadder("warmup_steps = 50\n"), "ladder.toml");
  ASSERT_EQ(spec.runs.size(), 1u);
  const auto& train = spec.runs[0].config.train;
  EXPECT_EQ(train.warmup_steps, train.steps / 5);  // cut as before
  ASSERT_EQ(spec.warnings.size(), 1u);
  const std::string& w = spec.warnings[0];
  EXPECT_NE(w.find("ladder.toml:8"), std::string::npos) << w;
  EXPECT_NE(w.find("warmup_steps = 50"), std::string::npos) << w;
  EXPECT_NE(w.find("warms up for " + std::to_string(train.steps / 5) + " steps"), std::string::npos)
      << w;
}

TEST(WarmupWarning, AWarmupThatFitsOrTheDefaultIsSilent) {
  EXPECT_TRUE(parseLadder(shortLadder("warmup_steps = 1\n"), "ladder.toml").warnings.empty());
  EXPECT_TRUE(parseLadder(shortLadder(""), "ladder.toml").warnings.empty());
}

}  // namespace
