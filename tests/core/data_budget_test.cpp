// Training windows needed vs available: one epoch over a prefix when the split is big enough,
// epochs and the repeated fraction when it is not, and the growth ladder's top rung on llm.c's
// 10B-token FineWeb shards (the case docs/data.md's FineWeb section warns about).
#include "core/data_budget.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace deepladder {
namespace {

TEST(DataBudget, ABigSplitIsReadOnceAsAPrefix) {
  const DataBudget b = dataBudget(/*steps=*/100, /*batch_size=*/16, /*seq_len=*/64, 1'000'000);
  EXPECT_EQ(b.window_tokens, 65);
  EXPECT_EQ(b.windows_needed, 1600);
  EXPECT_EQ(b.windows_available, 15384);  // floor(1e6 / 65)
  EXPECT_EQ(b.tokens_needed, 1600 * 65);
  EXPECT_EQ(b.epochWindows(), 1600);
  EXPECT_EQ(b.epochs(), 1);
  EXPECT_EQ(b.repeatedFraction(), 0.0);
}

TEST(DataBudget, ASmallSplitRepeatsInEpochs) {
  const DataBudget b = dataBudget(100, 16, 64, 650 * 65 + 64);  // 650 windows, a short tail
  EXPECT_EQ(b.windows_available, 650);
  EXPECT_EQ(b.epochWindows(), 650);
  EXPECT_EQ(b.epochs(), 3);  // 1600 draws: 650 + 650 + 300
  EXPECT_DOUBLE_EQ(b.repeatedFraction(), 950.0 / 1600.0);
  EXPECT_EQ(dataBudget(10, 65, 64, 650 * 65).epochs(), 1);  // exactly the split
  EXPECT_EQ(dataBudget(1, 1, 64, 64).epochs(), 0);          // not one window
}

TEST(DataBudget, UntiedGrowD18OnTenBillionTokensRepeatsData) {
  // 24068 steps of 256 x 2049 tokens = 12.6B tokens read; llm.c's FineWeb 10B train shards hold
  // 99 x 1e8 tokens.
  const DataBudget b = dataBudget(24068, 256, 2048, 9'900'000'000);
  EXPECT_EQ(b.tokens_needed, int64_t{24068} * 256 * 2049);
  EXPECT_EQ(b.epochs(), 2);
  EXPECT_NEAR(b.repeatedFraction(), 0.215, 0.001);
}

TEST(DataBudget, AProblemOnlyBeyondMaxEpochsSayingWhatToDo) {
  const DataBudget one = dataBudget(100, 16, 64, 1'000'000);
  EXPECT_FALSE(dataBudgetProblem(one, 1));
  const DataBudget three = dataBudget(100, 16, 64, 650 * 65);
  EXPECT_FALSE(dataBudgetProblem(three, 3));
  const auto problem = dataBudgetProblem(three, 2);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("reads 104.0k tokens (1600 windows of 65)"), std::string::npos)
      << *problem;
  EXPECT_NE(problem->find("holds 42.2k"), std::string::npos) << *problem;
  EXPECT_NE(problem->find("3 passes"), std::string::npos) << *problem;
  EXPECT_NE(problem->find("59%"), std::string::npos) << *problem;  // 950 of 1600 windows
  EXPECT_NE(problem->find("max_epochs = 3 under [data]"), std::string::npos) << *problem;
  EXPECT_TRUE(dataBudgetProblem(dataBudget(1, 1, 64, 10), 5));  // not one window
}

TEST(DataBudget, RejectsEmptyRuns) {
  EXPECT_THROW(dataBudget(0, 1, 1, 10), std::invalid_argument);
  EXPECT_THROW(dataBudget(1, 0, 1, 10), std::invalid_argument);
  EXPECT_THROW(dataBudget(1, 1, 0, 10), std::invalid_argument);
  EXPECT_THROW(dataBudget(1, 1, 1, -1), std::invalid_argument);
}

}  // namespace
}  // namespace deepladder
