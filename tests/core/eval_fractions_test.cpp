// train.eval_at (core/eval_fractions.h): parsed sorted and without repeats, refused by entry, and
// the steps a run validates at: floor(f x steps), at least 1, never the last step's.
#include "core/eval_fractions.h"

#include <gtest/gtest.h>

#include "core/errors.h"

using namespace deepladder;

TEST(EvalFractions, ParsedSortedWithoutRepeatsAndEmptyIsNone) {
  EXPECT_EQ(parseEvalFractions(""), std::vector<double>{});
  EXPECT_EQ(parseEvalFractions("  "), std::vector<double>{});
  EXPECT_EQ(parseEvalFractions("0.75, 0.25,0.5,0.25"), (std::vector<double>{0.25, 0.5, 0.75}));
  EXPECT_EQ(parseEvalFractions("0.0625"), std::vector<double>{0.0625});
}

TEST(EvalFractions, RefusesEntriesOutsideTheRunOrNotNumbers) {
  for (const char* bad : {"0", "1", "1.5", "-0.5", "half", "0.5,,0.75", "0.5x", "nan"}) {
    try {
      parseEvalFractions(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("train.eval_at"), std::string::npos) << e.what();
    }
  }
}

TEST(EvalFractions, StepsAreTheFloorOfTheFractionAndAtLeastOne) {
  EXPECT_EQ(evalFractionStep(0.5, 81), 40);  // a cut at 0.5 x 81 = 40.5 keeps step 40
  EXPECT_EQ(evalFractionStep(0.25, 100), 25);
  EXPECT_EQ(evalFractionStep(0.0625, 10), 1);  // floor would be 0: never before the first step
  const std::vector<double> fractions{0.25, 0.5};
  EXPECT_TRUE(evalAtStep(fractions, 25, 100));
  EXPECT_TRUE(evalAtStep(fractions, 50, 100));
  EXPECT_FALSE(evalAtStep(fractions, 26, 100));
  EXPECT_FALSE(evalAtStep({}, 25, 100));
}
