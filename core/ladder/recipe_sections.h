// The growth recipe's sections of a ladder file: [recipe] (the ladder's globals) and each
// arm's [arms.NAME.recipe] constants, and the run config they give one rung (see
// growth_recipe.h for the paper's formulas). Used by parseLadder (ladder_spec.cpp).
#pragma once

#include "core/ladder/growth_recipe.h"
#include "core/run_config.h"
#include "core/toml_reader.h"

namespace deepladder::ladder {

// Per-arm constants of the growth recipe ([arms.NAME.recipe]); see growth_recipe.h.
struct RecipeArmConstants {
  double weight_decay = 0, beta1 = 0.8, beta2 = 0.95, eps = 1e-10;
  int64_t warmup = 0;
  double warmdown = 0.6, m_out = 1, r = 1, s_emb = 0.02, u = 0.0625;
  double embed_lr_mult = 1, head_lr_mult = 1, g = 0.8, tpp = 20;
  bool embed_head_decay = true;  // optional: false turns the embedding and head decay off
};

// [arms.NAME.recipe]: every constant is required.
RecipeArmConstants readRecipeArm(TomlReader r);

// [recipe]: the ladder's shared recipe values.
RecipeGlobals readRecipeGlobals(TomlReader r);

// The run config of one recipe rung: shape, recipe model options, Muon + AdamW groups, WSD.
void applyRecipe(RunConfig& c, const RecipeGlobals& g, const RecipeArmConstants& k,
                 const RecipeRung& rung, double crossover_fraction);

}  // namespace deepladder::ladder
