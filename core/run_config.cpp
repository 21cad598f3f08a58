// Run configuration: TOML reading with validation, JSON round trip, hash (see run_config.h).
#include "core/run_config.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/run_config_toml.h"
#include "core/toml_reader.h"

namespace deepladder {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ModelConfig, vocab_size, d_model, n_layer, n_head,
                                                seq_len, mlp, mlp_hidden, tie_embeddings, rope_base,
                                                arch, core_mode, passes, alpha, grow_passes,
                                                grow_layers, grow_fraction, rewarm_steps,
                                                boundary_every, boundary_source,
                                                layernorm_scaling, positions, attention,
                                                norm_gain, qk_norm, embed_norm, residual_scale,
                                                output_scale, init, init_embed_std, init_uniform,
                                                vocab_padded)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DataConfig, kind, train, val, val_tokens)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TrainConfig, seed, batch_size, steps, lr,
                                                min_lr_ratio, schedule, warmup_steps,
                                                decay_fraction, weight_decay, beta1, beta2, eps,
                                                grad_clip, eval_every, eval_batches,
                                                checkpoint_every, keep_checkpoints, log_every,
                                                threads, device, optimizer, embed_lr, head_lr,
                                                cautious_weight_decay, ranks, gpus_per_rank)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SquaringConfig, tier, layout, data_seed, iterations,
                                                mean_iterations, iteration_sigma, backprop_last,
                                                progressive_weight, eval_passes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RunConfig, name, task, model, data, train, squaring)

int64_t ModelConfig::mlpHidden() const {
  if (mlp_hidden > 0) return mlp_hidden;
  if (mlp == "swiglu") return 256 * ((8 * d_model / 3 + 255) / 256);
  return 4 * d_model;
}

namespace {
constexpr int64_t kBig = std::numeric_limits<int32_t>::max();
constexpr double kHuge = 1e300;
}  // namespace

void readModel(TomlReader r, ModelConfig& m) {
  m.vocab_size = r.integer("vocab_size", m.vocab_size, 2, 1 << 22);
  m.d_model = r.integer("d_model", m.d_model, 1, 1 << 16);
  m.n_layer = r.integer("n_layer", m.n_layer, 1, 1024);
  m.n_head = r.integer("n_head", m.n_head, 1, 1024);
  m.seq_len = r.integer("seq_len", m.seq_len, 1, 1 << 20);
  m.mlp = r.choice("mlp", m.mlp, {"gelu", "swiglu"});
  m.mlp_hidden = r.integer("mlp_hidden", m.mlp_hidden, 0, 1 << 20);
  m.tie_embeddings = r.boolean("tie_embeddings", m.tie_embeddings);
  m.rope_base = r.number("rope_base", m.rope_base, 1.0, 1e9);
  m.arch = r.choice("arch", m.arch, {"vanilla", "pcc"});
  m.core_mode = r.choice("core_mode", m.core_mode, {"tied", "untied"});
  m.passes = r.integer("passes", m.passes, 1, 1024);
  m.alpha = r.number("alpha", m.alpha, -1e6, 1e6);
  m.grow_passes = r.integer("grow_passes", m.grow_passes, 0, 1024);
  m.grow_layers = r.integer("grow_layers", m.grow_layers, 0, 4096);
  m.grow_fraction = r.number("grow_fraction", m.grow_fraction, 0.0, 1.0);
  m.rewarm_steps = r.integer("rewarm_steps", m.rewarm_steps, 0, 1 << 30);
  m.boundary_every = r.integer("boundary_every", m.boundary_every, 0, 4096);
  m.boundary_source = r.integer("boundary_source", m.boundary_source, 0, 4096);
  m.layernorm_scaling = r.boolean("layernorm_scaling", m.layernorm_scaling);
  m.positions = r.choice("positions", m.positions, {"rope", "learned"});
  m.attention = r.choice("attention", m.attention, {"causal", "bidirectional"});
  m.norm_gain = r.boolean("norm_gain", m.norm_gain);
  m.qk_norm = r.boolean("qk_norm", m.qk_norm);
  m.embed_norm = r.boolean("embed_norm", m.embed_norm);
  m.residual_scale = r.number("residual_scale", m.residual_scale, 0.0, 1e6);
  m.output_scale = r.number("output_scale", m.output_scale, 0.0, 1e6);
  m.init = r.choice("init", m.init, {"gpt2", "recipe"});
  m.init_embed_std = r.number("init_embed_std", m.init_embed_std, 0.0, 1e3);
  m.init_uniform = r.number("init_uniform", m.init_uniform, 0.0, 1e3);
  m.vocab_padded = r.integer("vocab_padded", m.vocab_padded, 0, 1 << 22);
  if (m.vocab_padded != 0 && m.vocab_padded < m.vocab_size)
    r.fail("vocab_padded", "the padded vocabulary is smaller than vocab_size");
  if (m.arch == "pcc" && m.n_layer < 3)
    r.fail("n_layer", "a prelude/core/coda model needs n_layer >= 3", "raise n_layer");
  if (m.grow_passes != 0 && m.arch != "pcc")
    r.fail("grow_passes", "grow_passes applies to arch = \"pcc\"", "use grow_layers for a vanilla stack");
  if (m.grow_passes != 0 && m.grow_passes <= m.passes)
    r.fail("grow_passes", "growth must add passes (grow_passes > passes)");
  if (m.grow_layers != 0 && m.arch != "vanilla")
    r.fail("grow_layers", "grow_layers applies to arch = \"vanilla\"", "use grow_passes for pcc");
  if (m.grow_layers != 0 && m.grow_layers <= m.n_layer)
    r.fail("grow_layers", "growth must add blocks (grow_layers > n_layer)");
  if (m.boundary_source > 0 && m.boundary_source >= m.n_layer)
    r.fail("boundary_source", "the source block must be an earlier block (< n_layer)");
  if (m.d_model % m.n_head != 0)
    r.fail("n_head", "d_model " + std::to_string(m.d_model) + " is not divisible by n_head " +
                         std::to_string(m.n_head),
           "choose n_head so that d_model / n_head is a whole (and even) head size");
  if ((m.d_model / m.n_head) % 2 != 0)
    r.fail("n_head", "the head size d_model / n_head must be even for rotary embeddings",
           "choose another n_head");
  r.finish();
}

void readData(TomlReader r, DataConfig& d) {
  d.kind = r.choice("kind", d.kind, {"builtin", "text", "shards"});
  d.train = r.string("train", d.train);
  d.val = r.string("val", d.val);
  d.val_tokens = r.integer("val_tokens", d.val_tokens, 1, std::numeric_limits<int64_t>::max());
  if (d.kind != "builtin" && d.train.empty())
    r.fail("train", "data kind \"" + d.kind + "\" needs a training file",
           "set train = \"PATH\" (and val = \"PATH\")");
  if (d.kind != "builtin" && d.val.empty())
    r.fail("val", "data kind \"" + d.kind + "\" needs a validation file", "set val = \"PATH\"");
  r.finish();
}

void readTrain(TomlReader r, TrainConfig& t) {
  t.seed = r.integer("seed", t.seed, 0, std::numeric_limits<int64_t>::max());
  t.batch_size = r.integer("batch_size", t.batch_size, 1, kBig);
  t.steps = r.integer("steps", t.steps, 1, kBig);
  t.lr = r.number("lr", t.lr, 0.0, 10.0);
  t.min_lr_ratio = r.number("min_lr_ratio", t.min_lr_ratio, 0.0, 1.0);
  t.schedule = r.choice("schedule", t.schedule, {"cosine", "wsd"});
  t.warmup_steps = r.integer("warmup_steps", t.warmup_steps, 0, kBig);
  t.decay_fraction = r.number("decay_fraction", t.decay_fraction, 0.0, 1.0);
  t.weight_decay = r.number("weight_decay", t.weight_decay, 0.0, 10.0);
  t.beta1 = r.number("beta1", t.beta1, 0.0, 0.999999);
  t.beta2 = r.number("beta2", t.beta2, 0.0, 0.999999999);
  t.eps = r.number("eps", t.eps, 0.0, 1.0);
  t.grad_clip = r.number("grad_clip", t.grad_clip, 0.0, kHuge);
  t.eval_every = r.integer("eval_every", t.eval_every, 1, kBig);
  t.eval_batches = r.integer("eval_batches", t.eval_batches, 1, kBig);
  t.checkpoint_every = r.integer("checkpoint_every", t.checkpoint_every, 0, kBig);
  t.keep_checkpoints = r.integer("keep_checkpoints", t.keep_checkpoints, 1, 1000);
  t.log_every = r.integer("log_every", t.log_every, 1, kBig);
  t.threads = r.integer("threads", t.threads, 0, 4096);
  t.device = r.string("device", t.device);
  t.optimizer = r.choice("optimizer", t.optimizer, {"adamw", "muon"});
  t.embed_lr = r.number("embed_lr", t.embed_lr, 0.0, 100.0);
  t.head_lr = r.number("head_lr", t.head_lr, 0.0, 100.0);
  t.cautious_weight_decay = r.boolean("cautious_weight_decay", t.cautious_weight_decay);
  t.ranks = r.integer("ranks", t.ranks, 1, 4096);
  t.gpus_per_rank = r.integer("gpus_per_rank", t.gpus_per_rank, 0, 64);
  if (t.device != "cpu" && t.device != "cuda" && t.device.rfind("cuda:", 0) != 0)
    r.fail("device", "unknown device \"" + t.device + "\"", "use \"cpu\", \"cuda\" or \"cuda:N\"");
  if (t.warmup_steps > t.steps)
    r.fail("warmup_steps", "warmup (" + std::to_string(t.warmup_steps) +
                               " steps) is longer than the run (" + std::to_string(t.steps) + ")",
           "lower warmup_steps or raise steps");
  r.finish();
}

void readSquaring(TomlReader r, SquaringConfig& q) {
  q.tier = r.string("tier", q.tier);
  q.layout = r.choice("layout", q.layout, {"separate", "causal"});
  q.data_seed = r.integer("data_seed", q.data_seed, 0, std::numeric_limits<int64_t>::max());
  q.iterations = r.choice("iterations", q.iterations, {"fixed", "poisson_lognormal", "per_t"});
  q.mean_iterations = r.number("mean_iterations", q.mean_iterations, 1.0, 1024.0);
  q.iteration_sigma = r.number("iteration_sigma", q.iteration_sigma, 0.0, 10.0);
  q.backprop_last = r.integer("backprop_last", q.backprop_last, 0, 1024);
  q.progressive_weight = r.number("progressive_weight", q.progressive_weight, 0.0, 1.0);
  q.eval_passes = r.string("eval_passes", q.eval_passes);
  r.finish();
}

RunConfig parseRunConfigToml(const std::string& text, const std::string& source_name) {
  toml::table root = parseTomlString(text, source_name);
  TomlReader r(root, source_name);
  RunConfig config;
  config.name = r.string("name", config.name);
  config.task = r.choice("task", config.task, {"lm", "squaring"});
  readModel(r.table("model"), config.model);
  readData(r.table("data"), config.data);
  readTrain(r.table("train"), config.train);
  readSquaring(r.table("squaring"), config.squaring);
  r.finish();
  validateRunConfig(config, source_name);
  return config;
}

RunConfig loadRunConfigToml(const std::string& path) {
  return parseRunConfigToml(readTextFile(path), path);
}

void validateRunConfig(const RunConfig& c, const std::string& source) {
  auto bad = [&](const std::string& field, const std::string& problem, const std::string& hint) {
    throw UserError(locatedMessage(source, 0, field, problem, hint));
  };
  if (c.name.empty()) bad("name", "the run name is empty", "give the run a name");
  if (c.model.d_model % c.model.n_head != 0)
    bad("model.n_head", "d_model is not divisible by n_head", "choose another n_head");
  if (c.train.batch_size % c.train.ranks != 0)
    bad("train.ranks",
        "batch_size " + std::to_string(c.train.batch_size) + " does not split evenly over " +
            std::to_string(c.train.ranks) + " ranks",
        "make batch_size a multiple of ranks (every rank trains on batch_size / ranks rows)");
  if (c.task == "squaring") {
    if (c.train.ranks != 1)
      bad("train.ranks", "the squaring task trains on one rank", "set ranks = 1");
    if (c.model.vocab_size < 17)
      bad("model.vocab_size", "the squaring task has 17 tokens", "set vocab_size = 17");
    return;
  }
  if (c.data.kind != "builtin" && c.model.vocab_size < 256 && c.data.kind == "text")
    bad("model.vocab_size", "byte-level text needs vocab_size >= 256", "set vocab_size = 256");
  if (c.data.kind == "builtin" && c.model.vocab_size < 256)
    bad("model.vocab_size", "the built-in corpus is byte-level and needs vocab_size >= 256",
        "set vocab_size = 256");
}

nlohmann::json toJson(const RunConfig& config) { return config; }

RunConfig runConfigFromJson(const nlohmann::json& json) {
  try {
    RunConfig config = json.get<RunConfig>();
    validateRunConfig(config, "run config JSON");
    return config;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string("run config JSON: ") + e.what() +
                    ". Regenerate it with 'deepladder train' or check the field types");
  }
}

std::string configHash(const RunConfig& config) {
  const std::string canonical = toJson(config).dump();
  uint64_t hash = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char ch : canonical) {
    hash ^= ch;
    hash *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

}  // namespace deepladder
