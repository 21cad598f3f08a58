// Ladder spec reading and grid expansion (see ladder_spec.h).
#include "core/ladder/ladder_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "core/architecture.h"
#include "core/errors.h"
#include "core/flop_model.h"
#include "core/ladder/growth_recipe.h"
#include "core/ladder/memory_plan.h"
#include "core/names.h"
#include "core/options/option_toml.h"
#include "core/options/validate.h"
#include "core/safe_text.h"
#include "core/sha256.h"
#include "core/toml_reader.h"

namespace deepladder::ladder {

namespace {

struct SizeEntry {
  std::string name;
  toml::table model_overrides;
  std::string where;  // qualified key, for messages
  std::string path;   // the dotted prefix of its model keys ("sizes.list[0]")
};

struct BudgetRule {
  std::string rule = "tokens_per_param";
  double tokens_per_param = 20;
  double tokens = 0;
  std::vector<double> flops;  // one value, or one per rung
};

std::vector<SizeEntry> readSizes(TomlReader sizes) {
  std::vector<SizeEntry> out;
  const bool explicit_list = sizes.has("list");
  const bool depth_rule = sizes.has("depths");
  if (explicit_list == depth_rule)
    sizes.fail(explicit_list ? "depths" : "list",
               explicit_list ? "give either an explicit list or a depth ladder, not both"
                             : "no sizes given",
               "add [[sizes.list]] entries (name, d_model, n_layer, n_head) or depths = [..] "
               "with width_per_depth and head_dim");
  if (depth_rule) {
    const std::vector<int64_t> depths = sizes.integers("depths", 1, 1024);
    const int64_t width = sizes.integer("width_per_depth", 64, 1, 1 << 14);
    const int64_t fixed_width = sizes.integer("width", 0, 0, 1 << 16);  // 0: width_per_depth x d
    const int64_t head_dim = sizes.integer("head_dim", 32, 2, 1 << 14);
    if (depths.empty()) sizes.fail("depths", "the depth list is empty", "list at least one depth");
    if (fixed_width > 0 && sizes.has("width_per_depth"))
      sizes.fail("width", "give either a fixed width or width_per_depth, not both",
                 "width = 512 keeps every depth at d_model 512");
    for (int64_t depth : depths) {
      const int64_t d_model = fixed_width > 0 ? fixed_width : width * depth;
      if (d_model % head_dim != 0)
        sizes.fail("head_dim",
                   "d_model " + std::to_string(d_model) + " (depth " + std::to_string(depth) +
                       ") is not divisible by head_dim",
                   "choose head_dim dividing the width (width_per_depth x depth)");
      SizeEntry e;
      e.name = "d" + std::to_string(depth);
      e.model_overrides.insert("d_model", d_model);
      e.model_overrides.insert("n_layer", depth);
      e.model_overrides.insert("n_head", d_model / head_dim);
      e.where = sizes.qualified("depths");
      e.path = e.where;
      out.push_back(std::move(e));
    }
  } else {
    for (TomlReader entry : sizes.tableArray("list")) {
      SizeEntry e;
      e.name = entry.string("name", "");
      if (e.name.empty()) entry.fail("name", "every size needs a name", "add name = \"d64\"");
      checkName(e.name, "size", entry.file(), entry.lineOf("name"), entry.qualified("name"));
      e.model_overrides = entry.raw();
      e.model_overrides.erase("name");
      e.where = entry.qualified("name");
      e.path = entry.qualified("");
      e.path.pop_back();  // "sizes.list[0]." -> "sizes.list[0]"
      for (const auto& [k, v] : e.model_overrides) entry.skip(std::string(k.str()));
      entry.finish();
      out.push_back(std::move(e));
    }
    if (out.empty()) sizes.fail("list", "the size list is empty", "add [[sizes.list]] entries");
  }
  sizes.finish();
  std::set<std::string> names;
  for (const SizeEntry& size : out)
    if (!names.insert(size.name).second)
      throw UserError(size.where + ": size \"" + shownText(size.name) + "\" appears twice");
  return out;
}

BudgetRule readBudget(TomlReader r, size_t rungs) {
  BudgetRule b;
  b.rule = r.choice("rule", b.rule, {"tokens", "tokens_per_param", "flops"});
  b.tokens_per_param = r.number("tokens_per_param", b.tokens_per_param, 1e-6, 1e9);
  b.tokens = r.number("tokens", b.tokens, 0, 1e18);
  if (r.has("flops")) {
    const toml::node* node = r.raw().get("flops");
    if (node->is_array()) {
      for (const auto& v : *node->as_array()) {
        auto d = v.value<double>();
        if (!d || !std::isfinite(*d) || *d < 1 || *d > 1e30)
          r.fail("flops", "every FLOP budget must be a number from 1 to 1e30",
                 "give each rung its training FLOPs, e.g. 1e15");
        b.flops.push_back(*d);
      }
      r.skip("flops");
    } else {
      b.flops.push_back(r.number("flops", 0, 1, 1e30));
    }
  }
  if (b.rule == "tokens" && b.tokens <= 0)
    r.fail("tokens", "rule \"tokens\" needs tokens = N (tokens per run)");
  if (b.rule == "flops") {
    if (b.flops.empty()) r.fail("flops", "rule \"flops\" needs flops = X or a list per rung");
    if (b.flops.size() != 1 && b.flops.size() != rungs)
      r.fail("flops",
             "the FLOP list has " + std::to_string(b.flops.size()) + " entries for " +
                 std::to_string(rungs) + " sizes",
             "give one budget, or one per size in the order of [sizes]");
  }
  r.finish();
  return b;
}

// "auto", "cpu" or a comma-separated list of GPU indices ("0,1,3"), each listed once.
bool validDevices(const std::string& devices) {
  if (devices == "auto" || devices == "cpu") return true;
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= devices.size()) {
    const size_t comma = std::min(devices.find(',', start), devices.size());
    const std::string index = devices.substr(start, comma - start);
    if (index.empty() || index.size() > 4 ||
        !std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        !seen.insert(index).second)
      return false;
    start = comma + 1;
  }
  return true;
}

Resources readResources(TomlReader r) {
  Resources res;
  res.backend = r.choice("backend", res.backend, {"local", "slurm"});
  res.devices = r.string("devices", res.devices);
  if (!validDevices(res.devices))
    r.fail("devices", "\"" + shownText(res.devices) + "\" is not a device list",
           "use \"auto\", \"cpu\" or GPU indices such as \"0,1\"");
  res.slots = r.integer("slots", res.slots, 0, 4096);
  res.threads_per_slot = r.integer("threads_per_slot", res.threads_per_slot, 0, 4096);
  res.peer_timeout_s = r.number("peer_timeout_s", res.peer_timeout_s, 1.0, 86400.0);
  res.retries = r.integer("retries", res.retries, 0, 100);
  res.heartbeat_timeout_s = r.number("heartbeat_timeout_s", res.heartbeat_timeout_s, 1, 1e7);
  res.throughput_flops = r.number("throughput_flops", res.throughput_flops, 1, 1e20);
  res.peak_flops = r.number("peak_flops", res.peak_flops, 1, 1e20);
  res.fp32_peak_flops = r.number("fp32_peak_flops", res.fp32_peak_flops, 1, 1e20);
  res.mfu = r.number("mfu", res.mfu, 1e-6, 1);
  res.device_memory_gb = r.number("device_memory_gb", res.device_memory_gb, 1e-3, 1e6);
  TomlReader s = r.table("slurm");
  res.slurm.partition = s.string("partition", res.slurm.partition);
  res.slurm.time_limit = s.string("time", res.slurm.time_limit);
  res.slurm.cpus_per_task = s.integer("cpus_per_task", res.slurm.cpus_per_task, 1, 4096);
  res.slurm.gpus_per_task = s.integer("gpus_per_task", res.slurm.gpus_per_task, 0, 64);
  res.slurm.workdir = s.string("workdir", res.slurm.workdir);
  res.slurm.extra = s.strings("extra");
  for (const auto& option : res.slurm.extra)
    if (option.rfind("--", 0) != 0)
      s.fail("extra", "\"" + option + "\" is not an sbatch option",
             "write options as \"--key=value\"");
  s.finish();
  r.finish();
  return res;
}

// Tokens a rung's budget asks for (a double: an absurd budget must not overflow on its way to a
// step count; parseLadder refuses it).
double targetTokens(const BudgetRule& b, size_t rung, const ModelConfig& model) {
  double tokens = 0;
  if (b.rule == "tokens") tokens = b.tokens;
  if (b.rule == "tokens_per_param")
    tokens = b.tokens_per_param * static_cast<double>(countParameters(model).total);
  if (b.rule == "flops") {
    // A growing model spends f of its steps at the low depth and the rest at the high one.
    const double f = architectureShape(model).grows ? model.grow_fraction : 1.0;
    const double per_token = f * flopsPerToken(model, false) + (1 - f) * flopsPerToken(model, true);
    tokens = (b.flops.size() == 1 ? b.flops[0] : b.flops[rung]) / per_token;
  }
  return tokens;
}

// A run of more tokens than this is a slip (1e18 tokens: years on any cluster).
inline constexpr double kMaxRunTokens = 1e18;

std::string formatTokenBudget(double tokens) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", tokens);
  return text;
}

std::string sizeNames(const std::vector<SizeEntry>& sizes) {
  std::string out;
  for (const auto& s : sizes) out += (out.empty() ? "" : ", ") + s.name;
  return boundedText(out, 300);
}

// Per-arm constants of the growth recipe ([arms.NAME.recipe]); see growth_recipe.h.
struct RecipeArmConstants {
  double weight_decay = 0, beta1 = 0.8, beta2 = 0.95, eps = 1e-10;
  int64_t warmup = 0;
  double warmdown = 0.6, m_out = 1, r = 1, s_emb = 0.02, u = 0.0625;
  double embed_lr_mult = 1, head_lr_mult = 1, g = 0.8, tpp = 20;
  bool embed_head_decay = true;  // optional: false turns the embedding and head decay off
};

RecipeArmConstants readRecipeArm(TomlReader r) {
  RecipeArmConstants k;
  auto need = [&](const char* key) {
    if (!r.has(key))
      r.fail(key, "the growth recipe needs this constant for every arm",
             "see resources/ladders/growth-fineweb.toml");
  };
  for (const char* key : {"weight_decay", "beta1", "beta2", "eps", "warmup", "warmdown", "m_out",
                          "r", "s_emb", "u", "embed_lr_mult", "head_lr_mult", "g", "tpp"})
    need(key);
  k.weight_decay = r.number("weight_decay", k.weight_decay, 0, 10);
  k.beta1 = r.number("beta1", k.beta1, 0, 0.999999);
  k.beta2 = r.number("beta2", k.beta2, 0, 0.999999999);
  k.eps = r.number("eps", k.eps, 0, 1);
  k.warmup = r.integer("warmup", k.warmup, 0, 1 << 30);
  k.warmdown = r.number("warmdown", k.warmdown, 0, 1);
  k.m_out = r.number("m_out", k.m_out, 0, 1e6);
  k.r = r.number("r", k.r, 0, 1e6);
  k.s_emb = r.number("s_emb", k.s_emb, 0, 1e3);
  k.u = r.number("u", k.u, 0, 1e3);
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

// The run config of one recipe rung: shape, recipe model options, Muon + AdamW groups, WSD.
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

// Two runs named alike would share one directory (checkpoints deleting each other, one point
// counted twice): arm "a-b" with size "c" and arm "a" with size "b-c" are both "a-b-c-s1".
using RunNames = std::map<std::string, std::pair<std::string, std::string>>;  // name -> arm, size

void requireDistinctRunName(const PlannedRun& run, const TomlReader& arms, RunNames& names) {
  const auto [it, added] = names.emplace(run.name, std::make_pair(run.arm, run.size));
  if (added) return;
  arms.fail(run.arm,
            "the runs of arm \"" + it->second.first + "\" size \"" + it->second.second +
                "\" and of arm \"" + run.arm + "\" size \"" + run.size +
                "\" would both be named \"" + run.name + "\" and share one directory",
            "rename an arm or a size so that arm-size-sSEED names differ");
}

}  // namespace

LadderSpec parseLadder(const std::string& text, const std::string& source_name) {
  toml::table root = parseTomlString(text, source_name);
  TomlReader r(root, source_name);
  LadderSpec spec;
  spec.source = source_name;
  spec.text = text;
  spec.hash = sha256Hex(text.data(), text.size()).substr(0, 16);

  TomlReader head = r.table("ladder");
  spec.name = head.string("name", "");
  if (spec.name.empty())
    head.fail("name", "the ladder needs a name", "add name = \"my-ladder\" under [ladder]");
  checkName(spec.name, "ladder", source_name, head.lineOf("name"), head.qualified("name"));
  spec.task = head.choice("task", spec.task, {"lm", "squaring"});
  const Task task = *enumFromName<Task>(spec.task);
  spec.description = head.string("description", "");
  const std::string recipe = head.choice("recipe", "", {"", "growth-paper"});
  spec.seeds = head.integers("seeds", 0, std::numeric_limits<int64_t>::max());
  if (spec.seeds.empty()) spec.seeds = {1};
  std::set<int64_t> distinct_seeds;
  for (int64_t seed : spec.seeds)
    if (!distinct_seeds.insert(seed).second)
      head.fail("seeds", "seed " + std::to_string(seed) + " appears twice",
                "list each seed once: two runs with one seed would share one directory");
  head.finish();

  // Run defaults: [model], [data], [train], [squaring]; each planned run then applies its size
  // and its arm on top, and remembers where every value came from for validate()'s messages.
  RunConfig base;
  base.task = task;
  if (task == Task::squaring) base.model.vocab_size = 17;
  options::OptionOrigins base_origins;
  for (options::Section section : options::allSections()) {
    if (section == options::Section::root) continue;
    TomlReader table = r.table(std::string(options::sectionName(section)));
    options::applyTomlSection(table, section, base, &base_origins);
  }
  const std::vector<SizeEntry> sizes = readSizes(r.table("sizes"));
  const TomlReader budget_reader = r.table("budget");
  const BudgetRule budget = readBudget(budget_reader, sizes.size());
  spec.resources = readResources(r.table("resources"));
  const RecipeGlobals globals = readRecipeGlobals(r.table("recipe"));
  DeviceBudget device = budgetFromResources(spec.resources);
  if (device.bytes > 0) device.source += " (" + source_name + ")";
  if (!recipe.empty() && !r.raw().get("sizes"))
    r.fail("sizes", "a recipe ladder needs [sizes] depths = [..]");

  TomlReader arms = r.table("arms");
  std::vector<std::string> arm_names = arms.keys();
  if (arm_names.empty()) arm_names = {"vanilla"};
  for (const std::string& arm : arm_names)
    checkName(arm, "arm", source_name, arms.lineOf(arm), arms.qualified(arm));
  for (const auto& size : sizes) spec.sizes.push_back(size.name);
  spec.arms = arm_names;
  const double planned_runs =
      double(arm_names.size()) * double(sizes.size()) * double(spec.seeds.size());
  if (planned_runs > kMaxLadderRuns)
    head.fail("seeds",
              "arms x sizes x seeds is " + std::to_string(int64_t(planned_runs)) +
                  " runs (at most " + std::to_string(kMaxLadderRuns) + ")",
              "split the ladder, or use fewer seeds");

  const toml::table no_overrides;
  RunNames run_names;  // run names must be distinct: one directory each
  for (const std::string& arm : arm_names) {
    TomlReader arm_reader = arms.has(arm) ? arms.table(arm) : TomlReader(no_overrides, source_name);
    for (size_t rung = 0; rung < sizes.size(); ++rung) {
      RunConfig config = base;
      options::OptionOrigins origins = base_origins;
      TomlReader size_reader(sizes[rung].model_overrides, source_name, sizes[rung].path);
      options::applyTomlSection(size_reader, options::Section::model, config, &origins);
      const int64_t rung_depth = config.model.n_layer;
      TomlReader arm_copy = arm_reader;
      const std::string preset = arm_copy.string("preset", isArmPreset(arm) ? arm : "");
      if (!preset.empty()) {
        if (!isArmPreset(preset)) {
          std::string names;
          for (const auto& n : armPresetNames()) names += (names.empty() ? "" : ", ") + n;
          arm_copy.fail("preset", "unknown arm preset \"" + preset + "\"", "use one of " + names);
        }
        applyArmPreset(preset, config.model);
      }
      const std::vector<std::string> only = arm_copy.strings("sizes");
      for (const auto& name : only)  // a typo must not drop the arm without a word
        if (std::none_of(sizes.begin(), sizes.end(),
                         [&](const SizeEntry& s) { return s.name == name; }))
          arm_copy.fail("sizes", "unknown size \"" + shownText(name) + "\"",
                        "use the names of [sizes]: " + sizeNames(sizes));
      bool included = only.empty();
      for (const auto& name : only) included = included || name == sizes[rung].name;
      std::optional<RecipeRung> recipe_rung;
      if (!recipe.empty()) {
        const RecipeArmConstants k = readRecipeArm(arm_copy.table("recipe"));
        TomlReader cross = arm_copy.table("crossover");
        for (const auto& key : cross.keys()) (void)cross.number(key, 0, 0, 1);
        const RecipeArmShape shape = recipeArmShape(preset.empty() ? "vanilla" : preset);
        double f = 0;
        if (shape.grow_passes > 0 && included) {
          if (!cross.has(sizes[rung].name))
            arm_copy.fail("crossover",
                          "no crossover fraction for size \"" + sizes[rung].name + "\"",
                          "add " + sizes[rung].name + " = 0.75 to this arm's crossover table");
          f = cross.number(sizes[rung].name, 0, 0, 1);
        }
        try {
          recipe_rung = planRecipeRung(globals, shape, rung_depth, k.tpp, k.g, f);
        } catch (const UserError& e) {  // locate it: the arm's recipe
          arm_copy.fail("recipe", e.what());
        }
        applyRecipe(config, globals, k, *recipe_rung, f);
      }
      for (options::Section section : options::allSections()) {
        if (section == options::Section::root) continue;
        TomlReader table = arm_copy.table(std::string(options::sectionName(section)));
        options::applyTomlSection(table, section, config, &origins);
      }
      arm_copy.finish();
      if (!included) continue;

      const int64_t tokens_per_step = config.train.batch_size * config.model.seq_len;
      if (!recipe_rung) {
        // The shape is validated before the budget is turned into steps (a head count of 0
        // would divide by zero on the way).
        options::validateModelShape(config, source_name + " (" + arm + "-" + sizes[rung].name + ")",
                                    &origins);
        const double tokens_target = targetTokens(budget, rung, config.model);
        const double max_tokens =
            std::min(kMaxRunTokens, double(options::kMaxCount) * double(tokens_per_step));
        if (!(tokens_target >= 0.5 * double(tokens_per_step)) || tokens_target > max_tokens)
          budget_reader.fail(budget.rule == "flops" ? "flops" : budget.rule,
                             "the budget gives arm \"" + arm + "\" size \"" + sizes[rung].name +
                                 "\" " + formatTokenBudget(tokens_target) + " tokens, " +
                                 (tokens_target > max_tokens
                                      ? "more than " + formatTokenBudget(max_tokens) +
                                            " (at most " + std::to_string(options::kMaxCount) +
                                            " steps of " + std::to_string(tokens_per_step) + ")"
                                      : "less than one step of " + std::to_string(tokens_per_step)),
                             "check the budget's value and unit");
        config.train.steps = std::max<int64_t>(
            1, static_cast<int64_t>(std::llround(tokens_target / double(tokens_per_step))));
        if (config.train.warmup_steps > config.train.steps / 5)
          config.train.warmup_steps = config.train.steps / 5;  // short rungs keep a short warmup
      }
      for (int64_t seed : spec.seeds) {
        PlannedRun run;
        run.arm = arm;
        run.size = sizes[rung].name;
        run.seed = seed;
        run.name = arm + "-" + sizes[rung].name + "-s" + std::to_string(seed);
        run.config = config;
        run.config.name = run.name;
        run.config.train.seed = seed;
        options::validateRunConfig(run.config, source_name + " (" + run.name + ")", &origins);
        static_cast<RunPlan&>(run) = planRunConfig(run.config, 0);
        run.depth = rung_depth;
        if (recipe_rung) {  // the paper's own accounting (growth_recipe.h)
          run.params = recipe_rung->params;
          run.executed_depth = recipe_rung->blocks_low;
          run.executed_depth_after_growth = recipe_rung->blocks_high;
          run.crossover_step = recipe_rung->crossover;
          run.flops_per_token = recipe_rung->flops_per_token_low;
          run.tokens = recipe_rung->tokens;
          run.flops = recipe_rung->flops;
        }
        planTime(run, spec.resources);
        planMemory(run, device);  // the micro-batch that fits, or a refusal
        spec.runs.push_back(std::move(run));
        requireDistinctRunName(spec.runs.back(), arms, run_names);
      }
    }
  }
  arms.finish();
  r.finish();
  return spec;
}

LadderSpec loadLadder(const std::string& path) {
  return parseLadder(readTextFile(path), path);
}

}  // namespace deepladder::ladder
