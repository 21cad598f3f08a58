// The one validation of a run config (see validate.h).
#include "core/options/validate.h"

#include <cmath>
#include <optional>

#include "core/errors.h"
#include "core/eval_fractions.h"
#include "core/names.h"
#include "core/options/option_schema.h"
#include "core/options/option_toml.h"
#include "core/safe_text.h"
#include "core/squaring/control_tiers.h"
#include "core/squaring/eval_passes.h"
#include "core/squaring/loop_format.h"
#include "core/squaring/tiers.h"
#include "core/squaring/tokens.h"

namespace deepladder::options {

namespace {

// A rule's finding: the option it is about (qualified key), what is wrong and what to do.
struct Problem {
  std::string key;
  std::string what;
  std::string hint;
};

std::string show(int64_t v) {
  return std::to_string(v);
}

std::optional<Problem> rangeProblem(const OptionSpec& spec, const RunConfig& c) {
  if (spec.type != OptionType::integer && spec.type != OptionType::number) return std::nullopt;
  const OptionValue value = spec.get(c);
  const double v = spec.type == OptionType::integer ? static_cast<double>(std::get<int64_t>(value))
                                                    : std::get<double>(value);
  if (std::isfinite(v) && v >= spec.min && v <= spec.max) return std::nullopt;
  return Problem{spec.qualifiedKey(), "value " + formatValue(value) + " is out of range",
                 "use a value from " + rangeDescription(spec)};
}

bool validDevice(const std::string& device) {
  if (device == "cpu" || device == "cuda") return true;
  if (device.rfind("cuda:", 0) != 0 || device.size() == 5 || device.size() > 9) return false;
  for (size_t i = 5; i < device.size(); ++i)
    if (device[i] < '0' || device[i] > '9') return false;
  return true;
}

std::optional<Problem> modelProblem(const RunConfig& c) {
  const ModelConfig& m = c.model;
  if (m.vocab_padded != 0 && m.vocab_padded < m.vocab_size)
    return Problem{"model.vocab_padded", "the padded vocabulary is smaller than vocab_size",
                   "set vocab_padded >= vocab_size, or 0"};
  if (m.arch == Arch::pcc && m.n_layer < 3)
    return Problem{"model.n_layer", "a prelude/core/coda model needs n_layer >= 3",
                   "raise n_layer"};
  if (m.grow_passes != 0 && m.arch != Arch::pcc)
    return Problem{"model.grow_passes", "grow_passes applies to arch = \"pcc\"",
                   "use grow_layers for a vanilla stack"};
  if (m.grow_passes != 0 && m.grow_passes <= m.passes)
    return Problem{"model.grow_passes", "growth must add passes (grow_passes > passes)", ""};
  if (m.grow_layers != 0 && m.arch != Arch::vanilla)
    return Problem{"model.grow_layers", "grow_layers applies to arch = \"vanilla\"",
                   "use grow_passes for pcc"};
  if (m.grow_layers != 0 && m.grow_layers <= m.n_layer)
    return Problem{"model.grow_layers", "growth must add blocks (grow_layers > n_layer)", ""};
  if ((m.grow_passes != 0 || m.grow_layers != 0) && (m.grow_fraction <= 0 || m.grow_fraction >= 1))
    return Problem{"model.grow_fraction", "a growing model needs 0 < grow_fraction < 1",
                   "growth happens at step int(grow_fraction x steps)"};
  if (m.boundary_every != 0 && m.arch != Arch::vanilla)
    return Problem{"model.boundary_every",
                   "the plain-stack boundary form is for vanilla stacks (pcc models have the "
                   "boundary operator between core passes)",
                   "set boundary_every = 0"};
  if (m.boundary_source > 0 && m.boundary_source >= m.n_layer)
    return Problem{"model.boundary_source", "the source block must be an earlier block (< n_layer)",
                   ""};
  if (m.n_head > m.d_model)
    return Problem{"model.n_head",
                   "n_head " + show(m.n_head) + " exceeds d_model " + show(m.d_model) +
                       " (the head size would be 0)",
                   "use fewer heads (or a smaller head_dim in the ladder's [sizes] or [recipe])"};
  if (m.d_model % m.n_head != 0)
    return Problem{"model.n_head",
                   "d_model " + show(m.d_model) + " is not divisible by n_head " + show(m.n_head),
                   "choose n_head so that d_model / n_head is a whole (and even) head size"};
  if (m.positions == Positions::rope && (m.d_model / m.n_head) % 2 != 0)
    return Problem{"model.n_head",
                   "the head size d_model / n_head must be even for rotary embeddings",
                   "choose another n_head"};
  return std::nullopt;
}

std::optional<Problem> trainProblem(const RunConfig& c) {
  const TrainConfig& t = c.train;
  if (!validDevice(t.device))
    return Problem{"train.device", "unknown device \"" + t.device + "\"",
                   "use \"cpu\", \"cuda\" or \"cuda:N\""};
  if (t.warmup_steps > t.steps)
    return Problem{"train.warmup_steps",
                   "warmup (" + show(t.warmup_steps) + " steps) is longer than the run (" +
                       show(t.steps) + ")",
                   "lower warmup_steps or raise steps"};
  if (!t.embed_head_weight_decay && t.optimizer != OptimizerKind::muon)
    return Problem{"train.embed_head_weight_decay",
                   "the embedding and head have their own decay only with optimizer = \"muon\"",
                   "remove it (adamw decays every matrix, the embedding included)"};
  if (t.batch_size % t.ranks != 0)
    return Problem{"train.ranks",
                   "batch_size " + show(t.batch_size) + " does not split evenly over " +
                       show(t.ranks) + " ranks",
                   "make batch_size a multiple of ranks (every rank trains on batch_size / ranks "
                   "rows)"};
  if (t.micro_batch > t.batch_size / t.ranks)
    return Problem{"train.micro_batch",
                   "micro_batch " + show(t.micro_batch) + " is larger than the " +
                       show(t.batch_size / t.ranks) + " sequences each rank trains on per step",
                   "use at most batch_size / ranks = " + show(t.batch_size / t.ranks) +
                       " (or 0 for all of them)"};
  try {
    parseEvalFractions(t.eval_at);
  } catch (const UserError&) {
    return Problem{"train.eval_at", "\"" + t.eval_at + "\" is malformed",
                   "write fractions of the run strictly between 0 and 1, separated by commas, e.g. "
                   "\"0.25,0.5,0.75\""};
  }
  if (t.activation_checkpointing_k != 0 &&
      t.activation_checkpointing != ActivationCheckpointing::every_k)
    return Problem{"train.activation_checkpointing_k",
                   "activation_checkpointing_k applies to activation_checkpointing = \"every_k\"",
                   "set activation_checkpointing = \"every_k\", or remove the k"};
  return std::nullopt;
}

// Validation sets are held in memory and evaluated whole at every evaluation: bounded so that a
// slip (eval_batches = 2e6, val_tokens = 1e12) is refused instead of exhausting memory or time.
inline constexpr int64_t kMaxValidationTokens = int64_t{1} << 28;  // 1 GiB as int32 tokens

std::optional<Problem> validationProblem(const RunConfig& c) {
  const int64_t window = c.model.seq_len + 1;
  if (c.data.kind == DataKind::shards) {
    if (c.data.val_tokens < window)
      return Problem{"data.val_tokens",
                     show(c.data.val_tokens) +
                         " tokens hold no validation window of seq_len + 1 = " + show(window) +
                         " tokens (the run would report a validation loss of 0)",
                     "set val_tokens to at least " + show(window)};
    if (c.data.val_tokens > kMaxValidationTokens)
      return Problem{"data.val_tokens",
                     show(c.data.val_tokens) + " validation tokens are more than " +
                         show(kMaxValidationTokens) + " held in memory",
                     "use at most " + show(kMaxValidationTokens)};
    return std::nullopt;
  }
  const double held = double(c.train.eval_batches) * double(c.train.batch_size) * double(window);
  if (held > double(kMaxValidationTokens))
    return Problem{"train.eval_batches",
                   show(c.train.eval_batches) + " batches of " + show(c.train.batch_size) + " x " +
                       show(window) + " tokens are more than " + show(kMaxValidationTokens) +
                       " validation tokens held in memory",
                   "use fewer eval_batches"};
  return std::nullopt;
}

std::optional<Problem> lmProblem(const RunConfig& c) {
  if (auto problem = validationProblem(c)) return problem;
  const DataConfig& d = c.data;
  if (d.kind != DataKind::builtin && d.train.empty())
    return Problem{"data.train", "data kind \"" + enumName(d.kind) + "\" needs a training file",
                   "set train = \"PATH\" (and val = \"PATH\")"};
  if (d.kind != DataKind::builtin && d.val.empty())
    return Problem{"data.val", "data kind \"" + enumName(d.kind) + "\" needs a validation file",
                   "set val = \"PATH\""};
  if (d.kind != DataKind::builtin && d.corpus != BuiltinCorpus::kjv)
    return Problem{"data.corpus",
                   "corpus \"" + enumName(d.corpus) +
                       "\" is a built-in corpus, but data kind is \"" + enumName(d.kind) + "\"",
                   "set kind = \"builtin\", or leave corpus out"};
  const ModelConfig& m = c.model;
  if (m.positions != Positions::rope)
    return Problem{"model.positions", "the language model uses rotary positions",
                   "use positions = \"rope\""};
  if (m.attention != AttentionMask::causal)
    return Problem{"model.attention", "the language model is causal", "use attention = \"causal\""};
  if (m.init == InitScheme::recipe && m.tie_embeddings)
    return Problem{"model.init", "\"recipe\" zeroes the head, which a tied embedding cannot be",
                   "set tie_embeddings = false"};
  if (d.kind != DataKind::shards && c.model.vocab_size < 256)
    return Problem{
        "model.vocab_size",
        "byte-level text (data kind \"" + enumName(d.kind) + "\") needs vocab_size >= 256",
        "set vocab_size = 256"};
  return std::nullopt;
}

// Re-entry and deep supervision run one squaring per step of a per_t loop, read out at the
// separate layout's answer (or the loop row's x slot).
std::optional<Problem> loopRecipeProblem(const RunConfig& c) {
  namespace sq = deepladder::squaring;
  const SquaringConfig& q = c.squaring;
  const bool reentry = q.reentry != Reentry::off;
  const char* key = reentry ? "squaring.reentry" : "squaring.deep_supervision";
  if (!reentry && q.full_width_answer)
    return Problem{"squaring.full_width_answer", "the x slot it checks is a re-entry loop's",
                   "set reentry = \"straight_through\" or \"soft\", or remove it"};
  if (!reentry && q.deep_supervision == 0) return std::nullopt;
  if (q.iterations != IterationRule::per_t)
    return Problem{key, "a step of the loop is one squaring: it needs iterations = \"per_t\"",
                   "set iterations = \"per_t\" (with model.arch = \"pcc\", core_mode = \"tied\")"};
  if (q.layout != SquaringLayout::separate)
    return Problem{key, "the read-out of a step is the separate layout's answer",
                   "use layout = \"separate\" (attention = \"bidirectional\")"};
  if (q.backprop_last > 0)
    return Problem{"squaring.backprop_last", std::string(key) + " trains every step",
                   "set backprop_last = 0"};
  const int64_t row = sq::loopRowLength(sq::loopDigitWidth(sq::tierPreset(q.tier)));
  if (reentry && c.model.seq_len < row)
    return Problem{"model.seq_len",
                   show(c.model.seq_len) + " is shorter than the loop row of tier " + q.tier,
                   "set seq_len = " + show(row)};
  return std::nullopt;
}

// The squaring trainer's AdamW has one rate and plain decay; the per-group rates and cautious
// decay are Muon's.
std::optional<Problem> squaringOptimizerProblem(const RunConfig& c) {
  const TrainConfig& t = c.train;
  if (t.optimizer == OptimizerKind::muon) return std::nullopt;
  const char* hint = "set optimizer = \"muon\", or remove it";
  if (t.embed_lr != 0)
    return Problem{"train.embed_lr", "the embedding's own rate is the muon optimizer's", hint};
  if (t.head_lr != 0)
    return Problem{"train.head_lr", "the head's own rate is the muon optimizer's", hint};
  if (t.cautious_weight_decay)
    return Problem{"train.cautious_weight_decay",
                   "the squaring trainer's AdamW decays every weight plainly", hint};
  return std::nullopt;
}

std::optional<Problem> tierProblem(const SquaringConfig& q) {
  namespace sq = deepladder::squaring;
  for (const auto& name : sq::allTierNames())
    if (name == q.tier) return std::nullopt;
  std::string names;
  for (const auto& name : sq::allTierNames()) names += (names.empty() ? "" : ", ") + name;
  return Problem{"squaring.tier", "unknown tier \"" + q.tier + "\"", "use one of " + names};
}

std::optional<Problem> squaringProblem(const RunConfig& c) {
  namespace sq = deepladder::squaring;
  const ModelConfig& m = c.model;
  const SquaringConfig& q = c.squaring;
  if (m.vocab_size != sq::kVocabSize)
    return Problem{"model.vocab_size",
                   show(m.vocab_size) + " is not the squaring task's vocabulary",
                   "set vocab_size = " + std::to_string(sq::kVocabSize)};
  if (m.positions != Positions::learned)
    return Problem{"model.positions",
                   "\"" + enumName(m.positions) + "\" is not supported by the squaring models",
                   "use positions = \"learned\""};
  if (q.layout == SquaringLayout::causal && m.attention != AttentionMask::causal)
    return Problem{"model.attention",
                   "the causal layout needs attention = \"causal\" (next-token targets)", ""};
  if (auto unknown = tierProblem(q)) return unknown;
  const sq::TierPreset* tier = &sq::tierPreset(q.tier);
  const int64_t need = squaringSeqLenNeeded(q);
  if (m.seq_len < need)
    return Problem{"model.seq_len",
                   show(m.seq_len) + " is shorter than the rows of tier " + tier->name + " (" +
                       enumName(q.layout) + " layout)",
                   "set seq_len = " + show(need)};
  const bool looped = m.arch == Arch::pcc && m.core_mode == CoreMode::tied;
  if (q.iterations == IterationRule::per_t && q.progressive_weight > 0)
    return Problem{"squaring.progressive_weight",
                   "the progressive loss draws its own iteration counts",
                   "with iterations = \"per_t\" set progressive_weight = 0"};
  if (!looped && q.iterations != IterationRule::fixed)
    return Problem{"squaring.iterations", "the iteration rules need a looped core",
                   "set model.arch = \"pcc\" and model.core_mode = \"tied\""};
  if (!looped && q.backprop_last > 0)
    return Problem{"squaring.backprop_last", "truncated backprop needs a looped core",
                   "set model.arch = \"pcc\" and model.core_mode = \"tied\""};
  if (!looped && q.progressive_weight > 0)
    return Problem{"squaring.progressive_weight", "the progressive loss needs a looped core",
                   "set model.arch = \"pcc\" and model.core_mode = \"tied\""};
  if (auto problem = loopRecipeProblem(c)) return problem;
  if (auto problem = squaringOptimizerProblem(c)) return problem;
  if (!q.data_dir.empty() && q.data_seed != 0)
    return Problem{"squaring.data_seed", "the files of squaring.data_dir fix the data",
                   "remove data_seed (or data_dir)"};
  try {
    sq::parseEvalPasses(q.eval_passes);
  } catch (const UserError& e) {
    return Problem{"squaring.eval_passes", "\"" + q.eval_passes + "\" is malformed",
                   "use a range \"1..16\", a list \"1,2,4,8\" or one number"};
  }
  return std::nullopt;
}

// An option the task's trainer does not honour must keep its default.
std::optional<Problem> unhonouredProblem(const RunConfig& c) {
  for (const OptionSpec& spec : runOptionSchema()) {
    if (spec.honouredBy(c.task) || spec.isDefault(c)) continue;
    return Problem{
        spec.qualifiedKey(),
        formatValue(spec.get(c)) + " is not supported by the " + enumName(c.task) + " trainer",
        "remove it (or set it to its default, " + formatValue(spec.default_value) + ")"};
  }
  return std::nullopt;
}

}  // namespace

int64_t squaringSeqLenNeeded(const SquaringConfig& q) {
  namespace sq = deepladder::squaring;
  const sq::TierPreset& tier = sq::tierPreset(q.tier);
  return q.layout == SquaringLayout::separate ? sq::promptLengthBound(tier.maxBits(), tier.maxT())
                                              : sq::causalSeqLenBound(tier.maxBits(), tier.maxT());
}

bool isValidRunConfig(const RunConfig& config) {
  try {
    validateRunConfig(config, "");
    return true;
  } catch (const UserError&) {
    return false;
  }
}

namespace {

[[noreturn]] void raise(const Problem& problem, const std::string& source,
                        const OptionOrigins* origins) {
  const OptionOrigin* where = origins ? origins->find(problem.key) : nullptr;
  if (where)
    throw UserError(
        locatedMessage(where->file, where->line, where->key, problem.what, problem.hint));
  throw UserError(locatedMessage(source, 0, problem.key, problem.what, problem.hint));
}

}  // namespace

void validatePlanningInputs(const RunConfig& config, const std::string& source,
                            const OptionOrigins* origins) {
  std::optional<Problem> problem;
  for (const OptionSpec& spec : runOptionSchema()) {
    if (problem) break;
    problem = rangeProblem(spec, config);
  }
  if (!problem) problem = modelProblem(config);
  if (!problem && config.task == Task::squaring) problem = tierProblem(config.squaring);
  if (problem) raise(*problem, source, origins);
}

void validateRunConfig(const RunConfig& config, const std::string& source,
                       const OptionOrigins* origins) {
  std::optional<Problem> problem;
  if (config.name.empty())
    problem = Problem{"name", "the run name is empty", "give the run a name"};
  else if (auto bad = nameProblem(config.name, kMaxRunNameLength))
    problem =
        Problem{"name", "run name \"" + shownText(config.name) + "\" " + *bad, nameRuleHint()};
  for (const OptionSpec& spec : runOptionSchema()) {
    if (problem) break;
    problem = rangeProblem(spec, config);
  }
  if (!problem) problem = modelProblem(config);
  if (!problem) problem = trainProblem(config);
  if (!problem) problem = unhonouredProblem(config);
  if (!problem)
    problem = config.task == Task::squaring ? squaringProblem(config) : lmProblem(config);
  if (problem) raise(*problem, source, origins);
}

}  // namespace deepladder::options
