// The growth recipe's sections of a ladder file (see recipe_sections.h).
#include "core/ladder/recipe_sections.h"

#include <stdexcept>
#include <string>
#include <string_view>

#include "core/options/option_schema.h"

namespace deepladder::ladder {

namespace {

// The constants every recipe arm gives (resources/ladders/growth-fineweb.toml); one that becomes
// a run option (applyRecipe below) names it and takes its range from the option schema.
struct RecipeConstant {
  const char* key;
  options::Section section;
  const char* option;  // nullptr: a recipe number, not a run option
};
constexpr RecipeConstant kRecipeConstants[] = {
    {"weight_decay", options::Section::train, "weight_decay"},
    {"beta1", options::Section::train, "beta1"},
    {"beta2", options::Section::train, "beta2"},
    {"eps", options::Section::train, "eps"},
    {"warmup", options::Section::train, "warmup_steps"},
    {"warmdown", options::Section::train, "decay_fraction"},
    {"m_out", options::Section::model, "output_scale"},
    {"r", options::Section::model, "residual_scale"},
    {"s_emb", options::Section::model, "init_embed_std"},
    {"u", options::Section::model, "init_uniform"},
    {"embed_lr_mult", options::Section::root, nullptr},
    {"head_lr_mult", options::Section::root, nullptr},
    {"g", options::Section::root, nullptr},
    {"tpp", options::Section::root, nullptr},
};

const options::OptionSpec& optionOf(const char* key) {
  for (const RecipeConstant& c : kRecipeConstants)
    if (std::string_view(c.key) == key && c.option)
      if (const options::OptionSpec* spec = options::findOption(c.section, c.option)) return *spec;
  throw std::logic_error(std::string("recipe constant ") + key + " names no run option");
}

}  // namespace

RecipeArmConstants readRecipeArm(TomlReader r) {
  RecipeArmConstants k;
  for (const RecipeConstant& c : kRecipeConstants)
    if (!r.has(c.key))
      r.fail(c.key, "the growth recipe needs this constant for every arm",
             "see resources/ladders/growth-fineweb.toml");
  // The constants that become run options: the schema's ranges.
  auto optionNumber = [&](const char* key, double fallback) {
    const options::OptionSpec& spec = optionOf(key);
    return r.number(key, fallback, spec.min, spec.max);
  };
  k.weight_decay = optionNumber("weight_decay", k.weight_decay);
  k.beta1 = optionNumber("beta1", k.beta1);
  k.beta2 = optionNumber("beta2", k.beta2);
  k.eps = optionNumber("eps", k.eps);
  const options::OptionSpec& warmup = optionOf("warmup");
  k.warmup = r.integer("warmup", k.warmup, static_cast<int64_t>(warmup.min),
                       static_cast<int64_t>(warmup.max));
  k.warmdown = optionNumber("warmdown", k.warmdown);
  k.m_out = optionNumber("m_out", k.m_out);
  k.r = optionNumber("r", k.r);
  k.s_emb = optionNumber("s_emb", k.s_emb);
  k.u = optionNumber("u", k.u);
  k.embed_lr_mult = r.number("embed_lr_mult", k.embed_lr_mult, 0, 1e6);
  k.head_lr_mult = r.number("head_lr_mult", k.head_lr_mult, 0, 1e6);
  k.g = r.number("g", k.g, 0, 10);
  k.tpp = r.number("tpp", k.tpp, 1e-6, 1e9);
  k.embed_head_decay = r.boolean("embed_head_decay", k.embed_head_decay);
  r.finish();
  return k;
}

RecipeGlobals readRecipeGlobals(TomlReader r) {
  RecipeGlobals g;
  g.width_per_depth = r.integer("width_per_depth", g.width_per_depth, 1, 1 << 14);
  g.head_dim = r.integer("head_dim", g.head_dim, 2, 1 << 14);
  g.seq_len = r.integer("seq_len", g.seq_len, 1, 1 << 20);
  g.vocab = r.integer("vocab", g.vocab, 2, 1 << 22);
  g.vocab_padded = r.integer("vocab_padded", g.vocab_padded, 2, 1 << 22);
  g.batch_tokens = r.integer("batch_tokens", g.batch_tokens, 1, int64_t(1) << 40);
  g.matrix_lr_d8 = r.number("matrix_lr_d8", g.matrix_lr_d8, 0, 10);
  g.hidden_multiple = r.integer("hidden_multiple", g.hidden_multiple, 1, 1 << 14);
  if (g.batch_tokens % g.seq_len != 0)
    r.fail("batch_tokens", "batch_tokens must be a multiple of seq_len");
  r.finish();
  return g;
}

void applyRecipe(RunConfig& c, const RecipeGlobals& g, const RecipeArmConstants& k,
                 const RecipeRung& rung, double crossover_fraction) {
  ModelConfig& m = c.model;
  m.vocab_size = g.vocab;
  m.vocab_padded = g.vocab_padded;
  m.d_model = rung.width;
  m.n_head = rung.heads;
  m.seq_len = g.seq_len;
  m.mlp = MlpKind::swiglu;
  m.mlp_hidden = rung.hidden;
  m.tie_embeddings = false;
  m.norm_gain = false;
  m.qk_norm = true;
  m.embed_norm = true;
  m.residual_scale = k.r;
  m.output_scale = k.m_out;
  m.init = InitScheme::recipe;
  m.init_embed_std = k.s_emb;
  m.init_uniform = k.u;
  if (rung.crossover >= 0) {
    m.grow_fraction = crossover_fraction;
    m.rewarm_steps = 40;
  }
  TrainConfig& t = c.train;
  t.batch_size = g.batch_tokens / g.seq_len;
  t.steps = rung.steps;
  t.optimizer = OptimizerKind::muon;
  t.lr = rung.matrix_lr;
  t.embed_lr = k.embed_lr_mult * rung.matrix_lr;
  t.head_lr = k.head_lr_mult * rung.matrix_lr;
  t.weight_decay = k.weight_decay;
  t.embed_head_weight_decay = k.embed_head_decay;  // the paper's decay of embedding and head
  t.cautious_weight_decay = true;
  t.beta1 = k.beta1;
  t.beta2 = k.beta2;
  t.eps = k.eps;
  t.grad_clip = 0;
  t.schedule = Schedule::wsd;
  t.warmup_steps = k.warmup;
  t.decay_fraction = k.warmdown;
  t.min_lr_ratio = 0;
}

}  // namespace deepladder::ladder
