// One training run's complete configuration: model shape, data, optimizer and schedule, cadences.
// Read from a TOML file (validated, errors name file:line:key) or from the JSON the CLI hands the
// worker. Defaults live in the member initializers, in one place. Qt-free: the worker links it.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace deepladder {

struct ModelConfig {
  int64_t vocab_size = 256;    // byte tokenizer; 50257 for GPT-2 shards
  int64_t d_model = 64;
  int64_t n_layer = 2;
  int64_t n_head = 4;          // d_model must be divisible by n_head
  int64_t seq_len = 64;
  std::string mlp = "gelu";    // "gelu" (hidden 4 d_model) or "swiglu"
  int64_t mlp_hidden = 0;      // 0: the default for the MLP kind (see mlpHidden())
  bool tie_embeddings = true;  // unembedding shares the token embedding matrix
  double rope_base = 10000.0;

  // --- depth architecture (issue: depth architectures; see core/architecture.h) ---
  // "vanilla": a plain stack of n_layer blocks. "pcc": n_layer blocks split into prelude / core /
  // coda in thirds; e = Prelude(embedding); h_1 = Core_1(e), h_k = Core_k(BO(h_{k-1}, e));
  // y = Coda(BO(h_K, e)) with BO(h, e) = RMSNorm(h) + alpha e (RMSNorm without gain).
  std::string arch = "vanilla";
  std::string core_mode = "untied";  // "tied": one core looped K times; "untied": K distinct cores
  int64_t passes = 1;                // K, core passes (before growth)
  double alpha = 1.0;                // boundary operator re-injection weight
  // Growth at a fraction of training: pcc arms go from `passes` to `grow_passes` core passes
  // (untied: new core j copies core j mod K_low); vanilla stacks from n_layer to grow_layers
  // blocks (new block j copies block j mod n_layer). 0 = no growth.
  int64_t grow_passes = 0;
  int64_t grow_layers = 0;
  double grow_fraction = 0.75;  // crossover step c = int(grow_fraction x steps)
  int64_t rewarm_steps = 40;    // after growth every lr is scaled by min(1, (step - c) / rewarm)
  // Plain-stack ablations: every `boundary_every` blocks h <- RMSNorm(h) + alpha h_j, with j =
  // boundary_source (0 = embedding output, l = output of block l); and LayerNorm scaling (the
  // pre-norm output at block l, 1-based, scaled by 1/sqrt(l)).
  int64_t boundary_every = 0;
  int64_t boundary_source = 0;
  bool layernorm_scaling = false;

  // --- embedding and attention variants (serial tasks use learned positions, bidirectional) ---
  std::string positions = "rope";       // "rope" (rotary on q, k) or "learned" (absolute table)
  std::string attention = "causal";     // "causal" or "bidirectional" (with a padding mask)

  // --- the growth paper's recipe options (core/ladder/growth_recipe.h) ---
  bool norm_gain = true;           // RMSNorm with a learned gain (false: no gain anywhere)
  bool qk_norm = false;            // RMSNorm over the head dimension on q and k after rotary
  bool embed_norm = false;         // normalize the embedding output before block 1
  double residual_scale = 1.0;     // r: x <- x + r Attn(Norm x); x <- x + r MLP(Norm x)
  double output_scale = 1.0;       // m_out: logits = m_out W_head Norm(h)
  std::string init = "gpt2";       // "gpt2" (normal 0.02) or "recipe" (see init_embed_std, init_uniform)
  double init_embed_std = 0.02;    // recipe: embedding ~ N(0, s_emb^2)
  double init_uniform = 0.0625;    // recipe: q,k,v,gate,up ~ U(-u/sqrt(w), u/sqrt(w)); out, down, head 0
  int64_t vocab_padded = 0;        // embedding/head rows (0 = vocab_size); logits cut to vocab_size

  // Hidden width: gelu 4 d; swiglu 256 ceil(floor(8 d / 3) / 256); or mlp_hidden when set.
  int64_t mlpHidden() const;
};

struct DataConfig {
  std::string kind = "builtin";  // "builtin" (KJV corpus), "text" (byte-level), "shards" (llm.c .bin)
  std::string train;             // text: a file; shards: a file or glob pattern
  std::string val;               // text: a file; shards: a file or glob
  // shards: validation is the first val_tokens tokens of the held-out shard(s), cut into
  // contiguous seq_len + 1 token windows, all of them every eval (train.eval_batches is unused).
  int64_t val_tokens = 10'000'000;
};

struct TrainConfig {
  int64_t seed = 1;
  int64_t batch_size = 16;  // sequences per optimizer step
  int64_t steps = 200;
  double lr = 3e-3;
  double min_lr_ratio = 0.1;        // cosine floor, as a fraction of lr
  std::string schedule = "cosine";  // "cosine" or "wsd" (warmup-stable-decay)
  int64_t warmup_steps = 20;
  double decay_fraction = 0.2;      // wsd: the final fraction of steps that decays to min_lr
  double weight_decay = 0.1;        // decoupled (AdamW), matrices only
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double grad_clip = 1.0;           // max global grad norm; 0 disables
  int64_t eval_every = 50;          // validation every k steps (and at the end)
  int64_t eval_batches = 8;         // fixed held-out batches per validation
  int64_t checkpoint_every = 100;   // 0: only at the end
  int64_t keep_checkpoints = 3;
  int64_t log_every = 1;
  int64_t threads = 0;              // intra-op threads; 0 = all cores
  std::string device = "cpu";       // "cpu", "cuda", "cuda:N"
  // Optimizer: "adamw" for everything, or "muon" for block matrices with AdamW for the
  // embedding and the head (each with its own learning rate; 0 = lr).
  std::string optimizer = "adamw";
  double embed_lr = 0.0;
  double head_lr = 0.0;
  bool cautious_weight_decay = false;  // decay only where the update and the weight agree in sign
  // Data parallelism (trainers/distributed.h): the run is `ranks` worker processes, each training
  // on batch_size / ranks rows of every step. The local backend places them on `ranks` free slots
  // (GPUs or CPU slots), Slurm on --ntasks=ranks launched with srun. gpus_per_rank: GPUs each rank
  // holds (0: one GPU slot locally, slurm.gpus_per_task on Slurm).
  int64_t ranks = 1;
  int64_t gpus_per_rank = 0;
};

// The serial task (repeated squaring mod a semiprime, core/squaring/): data tier and the
// recurrent-depth training recipes. Used when RunConfig::task == "squaring".
struct SquaringConfig {
  std::string tier = "E1";           // E1..E5, M1..M5 (core/squaring/tiers.h)
  std::string layout = "separate";   // "separate" (bidirectional prompt) or "causal"
  int64_t data_seed = 0;             // dataset generation and split
  // Iterations of the looped core per batch: "fixed" (= model.passes) or "poisson_lognormal":
  // r ~ 1 + Poisson(lambda), lambda ~ LogNormal(log(mean_iterations - 1), iteration_sigma);
  // or "per_t": r = model.passes x T for each example (depth grows with the prompt's T, so one
  // core can be applied once per squaring; train and test alike).
  std::string iterations = "fixed";
  double mean_iterations = 4.0;
  double iteration_sigma = 0.5;
  int64_t backprop_last = 0;         // truncated backprop: gradients through the last k only (0 = all)
  // Progressive loss: run n iterations without gradient, then k with gradient; the loss is
  // (1 - w) full-depth loss + w progressive loss. 0 = off.
  double progressive_weight = 0.0;
  std::string eval_passes = "1..16";  // test-time iterations evaluated for looped models
};

struct RunConfig {
  std::string name = "run";
  std::string task = "lm";  // "lm" (language modelling) or "squaring" (serial task)
  ModelConfig model;
  DataConfig data;
  TrainConfig train;
  SquaringConfig squaring;
};

// Reads and validates a run TOML file. Throws UserError (file:line: key: problem. hint).
RunConfig loadRunConfigToml(const std::string& path);
RunConfig parseRunConfigToml(const std::string& text, const std::string& source_name);

// Cross-field checks (divisibility, data paths present for the kind); throws UserError
// naming `source` and the field.
void validateRunConfig(const RunConfig& config, const std::string& source);

nlohmann::json toJson(const RunConfig& config);
RunConfig runConfigFromJson(const nlohmann::json& json);  // throws UserError on bad fields

// Stable hex hash of the canonical JSON (for hello messages and idempotent re-runs).
std::string configHash(const RunConfig& config);

}  // namespace deepladder
