// The growth ladder's recipe arithmetic against the hand checks quoted in the issue (from the
// paper's public training code): N, S and c for vanilla and untied_grow rungs.
#include "core/ladder/growth_recipe.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace deepladder::ladder;

TEST(GrowthRecipe, VanillaD6ParamsAndSteps) {
  const RecipeRung r = planRecipeRung(RecipeGlobals{}, recipeArmShape("vanilla"), 6, 5, 0.8, 0);
  EXPECT_EQ(r.width, 768);
  EXPECT_EQ(r.heads, 6);
  EXPECT_EQ(r.hidden, 2048);
  EXPECT_EQ(r.params, 119734272);
  EXPECT_EQ(r.steps, 1142);
  EXPECT_EQ(r.crossover, -1);
  EXPECT_EQ(r.tokens, 1142LL * 524288);
  // F(6) by hand: 6 (6 (4 w^2 + 3 w H) + w V) + 6 * 6 * w * 2049
  const double w = 768, H = 2048, V = 50304;
  const double F = 6 * (6 * (4 * w * w + 3 * w * H) + w * V) + 6 * 6 * w * 2049;
  EXPECT_DOUBLE_EQ(r.flops_per_token_low, F);
  EXPECT_DOUBLE_EQ(r.flops, 524288.0 * 1142 * F);
}

TEST(GrowthRecipe, VanillaD12Steps) {
  EXPECT_EQ(planRecipeRung(RecipeGlobals{}, recipeArmShape("vanilla"), 12, 5, 0.8, 0).steps, 4714);
}

TEST(GrowthRecipe, UntiedGrowD6StepsAndCrossover) {
  const RecipeRung r =
      planRecipeRung(RecipeGlobals{}, recipeArmShape("untied_grow"), 6, 8, 0.6, 0.60);
  EXPECT_EQ(r.blocks_low, 8);
  EXPECT_EQ(r.blocks_high, 12);
  EXPECT_EQ(r.steps, 1826);
  EXPECT_EQ(r.crossover, 1095);
  EXPECT_DOUBLE_EQ(r.flops,
                   524288.0 * (1095 * r.flops_per_token_low + 731 * r.flops_per_token_high));
}

TEST(GrowthRecipe, UntiedGrowD12Steps) {
  EXPECT_EQ(planRecipeRung(RecipeGlobals{}, recipeArmShape("untied_grow"), 12, 8, 0.6, 0.73).steps,
            8311);
}

TEST(GrowthRecipe, DepthScaledLearningRateIsExactAtD8) {
  const RecipeRung d8 = planRecipeRung(RecipeGlobals{}, recipeArmShape("vanilla"), 8, 5, 0.8, 0);
  EXPECT_DOUBLE_EQ(d8.matrix_lr, 0.04);
  const RecipeRung d12 = planRecipeRung(RecipeGlobals{}, recipeArmShape("vanilla"), 12, 5, 0.8, 0);
  EXPECT_NEAR(d12.matrix_lr, 0.04 * std::pow(double(d8.params) / double(d12.params), 0.8), 1e-15);
  EXPECT_LT(d12.matrix_lr, 0.04);
}

TEST(GrowthRecipe, RoundHalfEvenLikePython) {
  EXPECT_EQ(roundHalfEven(2.5), 2);
  EXPECT_EQ(roundHalfEven(3.5), 4);
  EXPECT_EQ(roundHalfEven(3.4999), 3);
  EXPECT_EQ(roundHalfEven(1141.87), 1142);
}

TEST(GrowthRecipe, DeepVanillaRunsAsManyBlocksAsUntied2) {
  const int depths[] = {6, 8, 10, 12};
  const int blocks[] = {8, 11, 14, 16};  // the table
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(planRecipeRung(RecipeGlobals{}, recipeArmShape("deep_vanilla"), depths[i], 6, 0.7, 0)
                  .blocks_low,
              blocks[i]);
}
