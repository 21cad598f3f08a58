// A run's admissibility under the serial benchmark's rules comes from its options: exactly the
// options the schema flags kTaskTargets (deep supervision on computed intermediate squarings)
// make it inadmissible when they are off their defaults; every other squaring option, re-entry
// and the per-T loop included, leaves it admissible.
#include "core/options/admissibility.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/options/option_schema.h"
#include "core/run_config.h"

namespace deepladder::options {
namespace {

RunConfig squaringRun() {
  RunConfig c;
  c.task = Task::squaring;
  c.model.vocab_size = 17;
  c.model.seq_len = 13;
  c.model.arch = Arch::pcc;
  c.model.n_layer = 3;
  c.model.core_mode = CoreMode::tied;
  c.model.positions = Positions::learned;
  c.model.attention = AttentionMask::bidirectional;
  c.squaring.iterations = IterationRule::per_t;
  c.squaring.reentry = Reentry::straight_through;
  return c;
}

TEST(Admissibility, TheSchemaFlagsDeepSupervisionAndNothingElse) {
  EXPECT_EQ(taskTargetOptions(), std::vector<std::string>{"squaring.deep_supervision"});
}

TEST(Admissibility, AnAnswerOnlyLoopedRecipeIsAdmissible) {
  const Admissibility a = admissibility(squaringRun());
  EXPECT_TRUE(a.admissible);
  EXPECT_TRUE(a.offending.empty());
  EXPECT_EQ(a.label(), "admissible");
  EXPECT_EQ(a.offendingText(), "");
}

// Every option a squaring run honours, moved off its value one at a time: only the flagged ones
// change the label.
TEST(Admissibility, EverySquaringOptionOffItsValueIsJudgedByItsFlag) {
  for (const OptionSpec& spec : runOptionSchema()) {
    if (!spec.honouredBy(Task::squaring) || spec.key == "task") continue;
    RunConfig c = squaringRun();
    OptionValue other;
    switch (spec.type) {
      case OptionType::integer:
        other = std::get<int64_t>(spec.get(c)) + 1;
        break;
      case OptionType::number:
        other = std::get<double>(spec.get(c)) == 0.5 ? 0.25 : 0.5;
        break;
      case OptionType::boolean:
        other = !std::get<bool>(spec.get(c));
        break;
      case OptionType::string:
        other = std::get<std::string>(spec.get(c)) + "x";
        break;
      case OptionType::choice: {
        const std::string now = std::get<std::string>(spec.get(c));
        other = std::string(spec.choices[0] == now ? spec.choices[1] : spec.choices[0]);
        break;
      }
    }
    spec.set(c, other);
    EXPECT_EQ(admissibility(c).admissible, (spec.flags & kTaskTargets) == 0) << spec.qualifiedKey();
  }
}

TEST(Admissibility, DeepSupervisionMakesARunInadmissibleAndNamesTheOption) {
  RunConfig c = squaringRun();
  c.squaring.deep_supervision = 0.7;
  const Admissibility a = admissibility(c);
  EXPECT_FALSE(a.admissible);
  EXPECT_EQ(a.offending, std::vector<std::string>{"squaring.deep_supervision"});
  EXPECT_EQ(a.label(), "inadmissible (squaring.deep_supervision)");
}

TEST(Admissibility, ReadFromAStoredConfigJson) {
  RunConfig c = squaringRun();
  c.squaring.deep_supervision = 0.7;
  const auto inadmissible = admissibilityOfConfigJson(toJson(c).dump());
  ASSERT_TRUE(inadmissible.has_value());
  EXPECT_FALSE(inadmissible->admissible);
  c.squaring.deep_supervision = 0;
  const auto admissible = admissibilityOfConfigJson(toJson(c).dump());
  ASSERT_TRUE(admissible.has_value());
  EXPECT_TRUE(admissible->admissible);
  EXPECT_FALSE(admissibilityOfConfigJson("not json").has_value());
}

TEST(Admissibility, AnLmRunIsAdmissible) {
  EXPECT_TRUE(admissibility(RunConfig{}).admissible);
}

}  // namespace
}  // namespace deepladder::options
