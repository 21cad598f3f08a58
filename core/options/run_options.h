// Every run option, declared once. One line an option:
//
//   X(type, key, default, min, max, unit, flags, help)
//
// type: int64_t, double, bool, std::string or an enum of core/options/option_enums.h; min/max:
// the allowed range of a number (ignored for other types); unit: shown in the docs; flags:
// kHashed (the option enters the config hash: changing it makes another run, so a checkpoint
// of the old one is not resumed) and the tasks whose trainer honours it (kLm, kSquaring; a
// trainer refuses, by name, a non-default value of an option it does not honour).
// kShape: the option changes the cost of a training step, so runs that differ in it are not
// timed alike (core/ladder/memory_plan.h, throughputShapeKey: measured tokens/s by shape).
// kHashedOffDefault: hashed, but only where it differs from its default, for options added after
// runs were made: a config that leaves it at its default keeps the hash it had before.
// kTaskTargets: off its default, the option makes training targets by evaluating the task's own
// algorithm (deep supervision on computed intermediate squarings), which the serial benchmark's
// rules forbid: a run with one is not admissible (core/options/admissibility.h).
//
// From these lists come the config structs (core/run_config.h), the TOML reader, the JSON
// encoder and decoder, the config hash, the range checks of validate(), `deepladder options`,
// docs/options.md and the designer form. Adding an option: one line here, then
// its use in the trainer (and a cross-field rule in core/options/validate.cpp if it has one).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "core/options/option_enums.h"

namespace deepladder::options {

enum OptionFlag : unsigned {
  kHashed = 1u,
  kLm = 2u,
  kSquaring = 4u,
  kBothTasks = kLm | kSquaring,
  kShape = 16u,
  kOnlyOffDefault = 8u,
  kHashedOffDefault = kHashed | kOnlyOffDefault,
  kTaskTargets = 64u,
};

inline constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kMaxCount = std::numeric_limits<int32_t>::max();

}  // namespace deepladder::options

// The top level of a run file: name = "...", task = "...".
#define DEEPLADDER_ROOT_OPTIONS(X)                                                       \
  X(std::string, name, "run", 0, 0, "", kBothTasks,                                      \
    "Run name: the run's directory and its label in tables (letters, digits, . _ + -).") \
  X(Task, task, Task::lm, 0, 0, "", kHashed | kBothTasks | kShape,                       \
    "lm: language modelling on [data]; squaring: the serial task of [squaring].")

#define DEEPLADDER_MODEL_OPTIONS(X)                                                              \
  X(int64_t, vocab_size, 256, 2, 1 << 22, "tokens", kHashed | kBothTasks | kShape,               \
    "Vocabulary size: 256 for the byte tokenizer, 50257 for GPT-2 shards, 17 for squaring.")     \
  X(int64_t, d_model, 64, 1, 1 << 16, "", kHashed | kBothTasks | kShape,                         \
    "Width of the residual stream.")                                                             \
  X(int64_t, n_layer, 2, 1, 1 << 20, "blocks", kHashed | kBothTasks | kShape,                    \
    "Transformer blocks (split into prelude/core/coda thirds when arch = pcc).")                 \
  X(int64_t, n_head, 4, 1, 1 << 14, "", kHashed | kBothTasks | kShape,                           \
    "Attention heads; d_model / n_head is the head size (even, for rotary embeddings).")         \
  X(int64_t, seq_len, 64, 1, 1 << 20, "tokens", kHashed | kBothTasks | kShape,                   \
    "Context length of a training sequence.")                                                    \
  X(MlpKind, mlp, MlpKind::gelu, 0, 0, "", kHashed | kBothTasks | kShape,                        \
    "MLP: gelu (hidden 4 d_model) or swiglu (hidden 256 ceil(floor(8 d_model / 3) / 256)).")     \
  X(int64_t, mlp_hidden, 0, 0, 1 << 22, "", kHashed | kBothTasks | kShape,                       \
    "MLP hidden width; 0 = the MLP kind's default.")                                             \
  X(bool, tie_embeddings, true, 0, 0, "", kHashed | kBothTasks | kShape,                         \
    "The unembedding shares the token embedding matrix.")                                        \
  X(double, rope_base, 10000.0, 1.0, 1e9, "", kHashed | kLm, "Rotary embedding base frequency.") \
  X(Arch, arch, Arch::vanilla, 0, 0, "", kHashed | kBothTasks | kShape,                          \
    "vanilla: a plain stack; pcc: prelude/core/coda with the boundary operator between core "    \
    "passes, BO(h, e) = RMSNorm(h) + alpha e.")                                                  \
  X(CoreMode, core_mode, CoreMode::untied, 0, 0, "", kHashed | kBothTasks | kShape,              \
    "pcc: tied loops one core K times; untied stacks K distinct cores.")                         \
  X(int64_t, passes, 1, 1, 1 << 16, "", kHashed | kBothTasks | kShape,                           \
    "K, the core passes of a pcc model (before growth).")                                        \
  X(double, alpha, 1.0, -1e6, 1e6, "", kHashed | kBothTasks,                                     \
    "Boundary operator re-injection weight: BO(h, e) = RMSNorm(h) + alpha e.")                   \
  X(int64_t, grow_passes, 0, 0, 1 << 16, "", kHashed | kLm | kShape,                             \
    "pcc growth: core passes after growth (new untied core j copies core j mod K); 0 = none.")   \
  X(int64_t, grow_layers, 0, 0, 1 << 20, "blocks", kHashed | kLm | kShape,                       \
    "vanilla growth: blocks after growth, the middle section duplicated in place "               \
    "(deep_vanilla_grow: p+2c+o -> p+4c+o in untied_grow's core order); 0 = none.")              \
  X(double, grow_fraction, 0.75, 0.0, 1.0, "", kHashed | kLm | kShape,                           \
    "Growth happens at step int(grow_fraction x steps).")                                        \
  X(int64_t, rewarm_steps, 40, 0, 1 << 30, "steps", kHashed | kLm,                               \
    "After growth every learning rate is scaled by min(1, (step - crossover) / rewarm_steps).")  \
  X(int64_t, boundary_every, 0, 0, 1 << 20, "blocks", kHashed | kLm | kShape,                    \
    "Plain-stack ablation: every k blocks h <- RMSNorm(h) + alpha h_source; 0 = off.")           \
  X(int64_t, boundary_source, 0, 0, 1 << 20, "", kHashed | kLm,                                  \
    "The re-injected state of boundary_every: 0 = embedding output, l = output of block l.")     \
  X(bool, layernorm_scaling, false, 0, 0, "", kHashed | kLm,                                     \
    "Scale the pre-norm output of block l (1-based) by 1 / sqrt(l).")                            \
  X(Positions, positions, Positions::rope, 0, 0, "", kHashed | kBothTasks | kShape,              \
    "Positions: rope (rotary on q and k) or learned (an absolute table).")                       \
  X(AttentionMask, attention, AttentionMask::causal, 0, 0, "", kHashed | kBothTasks | kShape,    \
    "Attention mask: causal, or bidirectional with a padding mask.")                             \
  X(bool, norm_gain, true, 0, 0, "", kHashed | kLm | kShape,                                     \
    "RMSNorm with a learned gain (false: no gain anywhere, as the growth recipe).")              \
  X(bool, qk_norm, false, 0, 0, "", kHashed | kLm | kShape,                                      \
    "RMSNorm over the head dimension on q and k, after rotary.")                                 \
  X(bool, embed_norm, false, 0, 0, "", kHashed | kLm | kShape,                                   \
    "Normalize the embedding output before the first block.")                                    \
  X(double, residual_scale, 1.0, 0.0, 1e6, "", kHashed | kLm,                                    \
    "r: x <- x + r Attn(Norm x); x <- x + r MLP(Norm x).")                                       \
  X(double, output_scale, 1.0, 0.0, 1e6, "", kHashed | kLm,                                      \
    "m_out: logits = m_out W_head Norm(h).")                                                     \
  X(InitScheme, init, InitScheme::gpt2, 0, 0, "", kHashed | kLm,                                 \
    "gpt2: normal(0, 0.02); recipe: embedding N(0, init_embed_std^2), q/k/v/gate/up "            \
    "U(-u/sqrt(w), u/sqrt(w)), out/down/head zero.")                                             \
  X(double, init_embed_std, 0.02, 0.0, 1e3, "", kHashed | kLm,                                   \
    "Recipe init: standard deviation of the embedding.")                                         \
  X(double, init_uniform, 0.0625, 0.0, 1e3, "", kHashed | kLm,                                   \
    "Recipe init: u of the uniform block matrices.")                                             \
  X(int64_t, vocab_padded, 0, 0, 1 << 22, "tokens", kHashed | kLm | kShape,                      \
    "Embedding and head rows (0 = vocab_size); logits are cut back to vocab_size.")              \
  X(double, norm_eps, 0.0, 0.0, 1.0, "", kHashedOffDefault | kLm,                                \
    "eps of every RMSNorm (blocks, QK-norm, embedding and final norms, boundary operator); "     \
    "0 = the machine epsilon of the compute type (2^-23 for float32 and bfloat16), as the "      \
    "growth paper's rms_norm(eps=None). Before this option: 1e-6.")                              \
  X(TableDtype, rotary_tables, TableDtype::bf16, 0, 0, "", kHashedOffDefault | kLm,              \
    "Rotary cos/sin tables: bf16 computes them in float32 and rounds them to bfloat16, as "      \
    "the growth paper; fp32 keeps them in float32 (before this option).")

#define DEEPLADDER_DATA_OPTIONS(X)                                                             \
  X(DataKind, kind, DataKind::builtin, 0, 0, "", kHashed | kLm,                                \
    "builtin (a corpus scripts/setup writes, byte-level: data.corpus), text (a byte-level "    \
    "file) or shards (llm.c .bin).")                                                           \
  X(BuiltinCorpus, corpus, BuiltinCorpus::kjv, 0, 0, "", kHashedOffDefault | kLm,              \
    "builtin: kjv (the King James Bible, 3.93M train tokens) or gcide (the GNU Collaborative " \
    "International Dictionary of English, one entry a line, 30M train tokens), both from "     \
    "Debian packages. DEEPLADDER_CORPUS overrides the file either reads.")                     \
  X(std::string, train, "", 0, 0, "path", kHashed | kLm,                                       \
    "text: the training file; shards: a file or a glob pattern.")                              \
  X(std::string, val, "", 0, 0, "path", kHashed | kLm,                                         \
    "text: the validation file; shards: a file or a glob pattern.")                            \
  X(int64_t, val_tokens, 10'000'000, 1, kMaxInt, "tokens", kHashed | kLm,                      \
    "shards: validation is the first val_tokens tokens of the held-out shards, in contiguous " \
    "seq_len + 1 windows, all of them at every evaluation.")                                   \
  X(int64_t, max_epochs, 1, 1, 1 << 20, "epochs", kLm,                                         \
    "Passes over the training split a run may make: each run reads steps x batch_size "        \
    "windows of seq_len + 1 tokens without replacement; plan and the worker refuse a run "     \
    "whose split is too small for that in max_epochs passes.")

#define DEEPLADDER_TRAIN_OPTIONS(X)                                                              \
  X(int64_t, seed, 1, 0, kMaxInt, "", kHashed | kBothTasks,                                      \
    "Seed of the initialization and the data order.")                                            \
  X(int64_t, batch_size, 16, 1, kMaxCount, "sequences", kHashed | kBothTasks | kShape,           \
    "Sequences per optimizer step (over all ranks).")                                            \
  X(int64_t, steps, 200, 1, kMaxCount, "steps", kHashed | kBothTasks,                            \
    "Optimizer steps of the run.")                                                               \
  X(double, lr, 3e-3, 0.0, 10.0, "", kHashed | kBothTasks,                                       \
    "Peak learning rate (the matrix rate with muon).")                                           \
  X(double, lr_mult, 1.0, 0.0, 1000.0, "", kHashedOffDefault | kBothTasks,                       \
    "Multiplies every learning rate of the run together (lr, embed_lr, head_lr and the gains; "  \
    "a recipe ladder's depth-scaled rates too): the knob of a learning-rate [sweep].")           \
  X(double, min_lr_ratio, 0.1, 0.0, 1.0, "", kHashed | kBothTasks,                               \
    "Final learning rate as a fraction of lr.")                                                  \
  X(Schedule, schedule, Schedule::cosine, 0, 0, "", kHashed | kBothTasks,                        \
    "cosine: warmup, then cosine to min_lr_ratio x lr; wsd: warmup, flat, then a linear "        \
    "decay over the final decay_fraction of the steps.")                                         \
  X(int64_t, warmup_steps, 20, 0, kMaxCount, "steps", kHashed | kBothTasks,                      \
    "Linear warmup from 0 to lr.")                                                               \
  X(double, decay_fraction, 0.2, 0.0, 1.0, "", kHashed | kBothTasks,                             \
    "wsd: the final fraction of the steps that decays.")                                         \
  X(double, weight_decay, 0.1, 0.0, 10.0, "", kHashed | kBothTasks,                              \
    "Decoupled weight decay of the matrices (muon: also embedding and head, see below).")        \
  X(double, beta1, 0.9, 0.0, 0.999999, "", kHashed | kBothTasks, "AdamW beta1 (Muon momentum).") \
  X(double, beta2, 0.95, 0.0, 0.999999999, "", kHashed | kBothTasks, "AdamW beta2.")             \
  X(double, eps, 1e-8, 0.0, 1.0, "", kHashed | kBothTasks, "AdamW epsilon.")                     \
  X(double, grad_clip, 1.0, 0.0, 1e300, "", kHashed | kBothTasks,                                \
    "Largest global gradient norm; 0 = no clipping.")                                            \
  X(int64_t, eval_every, 50, 1, kMaxCount, "steps", kBothTasks,                                  \
    "Validation every k steps and at the end.")                                                  \
  X(int64_t, eval_batches, 8, 1, 1 << 20, "batches", kLm,                                        \
    "Fixed held-out batches per validation (text and builtin data).")                            \
  X(std::string, eval_at, "", 0, 0, "", kLm,                                                     \
    "Also validate (without the logit lens) after these fractions of the run, e.g. "             \
    "\"0.25,0.5,0.75\": curve predictions made there read the validation loss, the quantity "    \
    "they predict, instead of the noisy train loss. \"\" = none.")                               \
  X(int64_t, checkpoint_every, 100, 0, kMaxCount, "steps", kBothTasks,                           \
    "Checkpoint every k steps; 0 = only at the end. A crash loses at most this many steps.")     \
  X(int64_t, keep_checkpoints, 3, 1, 1000, "", kBothTasks, "Newest checkpoints kept on disk.")   \
  X(int64_t, log_every, 1, 1, kMaxCount, "steps", kBothTasks, "Training metrics every k steps.") \
  X(int64_t, threads, 0, 0, 1024, "", kBothTasks,                                                \
    "Intra-op threads of the worker; 0 = the slot's share of the cores.")                        \
  X(std::string, device, "cpu", 0, 0, "", kBothTasks | kShape,                                   \
    "cpu, cuda or cuda:N (the scheduler pins each run to its own GPU).")                         \
  X(OptimizerKind, optimizer, OptimizerKind::adamw, 0, 0, "", kHashed | kBothTasks | kShape,     \
    "adamw for every parameter, or muon for the block matrices with AdamW for the embedding "    \
    "and the head.")                                                                             \
  X(int64_t, muon_momentum_steps, 300, 0, kMaxCount, "steps", kHashedOffDefault | kBothTasks,    \
    "muon: the momentum ramps linearly from 0.85 to 0.95 over this many steps (the growth "      \
    "paper's 300; a short CPU run scales it with its warmup); 0 = 0.95 from the first step.")    \
  X(double, embed_lr, 0.0, 0.0, 100.0, "", kHashed | kBothTasks,                                 \
    "muon: the embedding's AdamW learning rate; 0 = lr.")                                        \
  X(double, head_lr, 0.0, 0.0, 100.0, "", kHashed | kBothTasks,                                  \
    "muon: the head's AdamW learning rate; 0 = lr.")                                             \
  X(bool, cautious_weight_decay, false, 0, 0, "", kHashed | kBothTasks,                          \
    "Decay a weight only where the update and the weight agree in sign.")                        \
  X(bool, embed_head_weight_decay, true, 0, 0, "", kHashed | kBothTasks,                         \
    "muon: the embedding and head AdamW groups decay with weight_decay (decoupled, "             \
    "p *= 1 - lr wd at their own rates, never cautious), as the growth paper; false: no decay.") \
  X(int64_t, ranks, 1, 1, 4096, "processes", kHashed | kLm | kShape,                             \
    "Data-parallel worker processes; each trains on batch_size / ranks rows of every step.")     \
  X(int64_t, gpus_per_rank, 0, 0, 64, "GPUs", kLm,                                               \
    "GPUs each rank holds; 0 = one GPU slot locally, slurm.gpus_per_task on Slurm.")             \
  X(Precision, precision, Precision::fp32, 0, 0, "", kHashed | kLm | kShape,                     \
    "fp32; or bf16: autocast matmuls and attention to bfloat16, with fp32 master weights, "      \
    "optimizer state and residual stream (no loss scaling needed).")                             \
  X(int64_t, micro_batch, 0, 0, kMaxCount, "sequences", kLm | kShape,                            \
    "Sequences per forward pass on each rank; gradients accumulate to the update of the whole "  \
    "batch. 0 = the rank's whole share (the plan picks one that fits the device memory).")       \
  X(ActivationCheckpointing, activation_checkpointing, ActivationCheckpointing::none, 0, 0, "",  \
    kLm | kShape,                                                                                \
    "none; blocks: keep each block's input and recompute the block in backward; every_k: keep "  \
    "every k-th block's input and recompute the k blocks between.")                              \
  X(int64_t, activation_checkpointing_k, 0, 0, 1 << 20, "blocks", kLm | kShape,                  \
    "every_k: blocks recomputed together; 0 = round(sqrt(executed blocks)).")                    \
  X(TableDtype, muon_orthogonalization, TableDtype::bf16, 0, 0, "",                              \
    kHashedOffDefault | kBothTasks,                                                              \
    "muon: dtype of the Polar-Express iterations: bf16 as the growth paper; fp32 for runs "      \
    "that must agree bit for bit across machines (not the paper).")                              \
  X(double, muon_row_norm_floor, 1e-7, 0.0, 1.0, "", kHashedOffDefault | kBothTasks,             \
    "muon: rows are divided by max(row norm, this floor); 1e-7 as the growth paper (1e-12 "      \
    "before this option).")                                                                      \
  X(bool, muon_exact_scalars, false, 0, 0, "", kHashedOffDefault | kBothTasks,                   \
    "muon: false rounds eta, wd, eta wd, beta and the variance scale to the orthogonalization "  \
    "dtype (bf16 or fp32), as the growth paper casts them to X's dtype; true keeps them exact "  \
    "(before this option).")                                                                     \
  X(std::string, init_from, "", 0, 0, "path", kHashedOffDefault | kLm,                           \
    "Start the model from this safetensors file (deepladder's parameter names; a grow arm's "    \
    "pre-growth model), optimizer state fresh; `deepladder export-weights` writes one. \"\" = "  \
    "initialise from the seed.")

#define DEEPLADDER_SQUARING_OPTIONS(X)                                                        \
  X(std::string, tier, "E1", 0, 0, "", kHashed | kSquaring | kShape,                          \
    "Data tier: E1..E5 (easy), M1..M5 (medium).")                                             \
  X(SquaringLayout, layout, SquaringLayout::separate, 0, 0, "", kHashed | kSquaring | kShape, \
    "separate: a bidirectional prompt and an answer read-out; causal: next-token targets.")   \
  X(int64_t, data_seed, 0, 0, kMaxInt, "", kHashed | kSquaring,                               \
    "Seed of the dataset generation and split.")                                              \
  X(IterationRule, iterations, IterationRule::fixed, 0, 0, "", kHashed | kSquaring | kShape,  \
    "Looped-core iterations per batch: fixed (= passes), poisson_lognormal, or per_t "        \
    "(passes x T for each prompt).")                                                          \
  X(double, mean_iterations, 4.0, 1.0, 1024.0, "", kHashed | kSquaring | kShape,              \
    "poisson_lognormal: r = 1 + Poisson(lambda), lambda ~ LogNormal(log(mean - 1), sigma).")  \
  X(double, iteration_sigma, 0.5, 0.0, 10.0, "", kHashed | kSquaring | kShape,                \
    "poisson_lognormal: sigma of the log-normal.")                                            \
  X(int64_t, backprop_last, 0, 0, 1024, "iterations", kHashed | kSquaring | kShape,           \
    "Truncated backprop: gradients through the last k iterations only; 0 = all.")             \
  X(double, progressive_weight, 0.0, 0.0, 1.0, "", kHashed | kSquaring,                       \
    "Progressive loss weight w: (1 - w) full-depth loss + w loss after n frozen and k live "  \
    "iterations; 0 = off.")                                                                   \
  X(std::string, eval_passes, "1..16", 0, 0, "", kSquaring,                                   \
    "Test-time iterations evaluated for looped models, e.g. \"1..16\" or \"1,2,4,8\".")       \
  X(std::string, data_dir, "", 0, 0, "path", kHashed | kSquaring,                             \
    "Train and evaluate on the tier files in this directory (`squaring generate`, native or " \
    "reference layout) instead of generating (tier, data_seed); \"\" = generate.")            \
  X(Reentry, reentry, Reentry::off, 0, 0, "", kHashed | kSquaring | kShape,                   \
    "per_t loops: straight_through or soft re-enters every step's digit read-out as the "     \
    "next step's x (the loop row N <N> X <v> T 1, one squaring per model.passes core "        \
    "passes); off: the prompt and the boundary operator only.")                               \
  X(double, deep_supervision, 0.0, 0.0, 1.0, "", kHashed | kSquaring | kShape | kTaskTargets, \
    "Weight w: (1 - w) answer loss + w mean loss of every step's read-out against "           \
    "x^(2^k) mod N, k = 1..T (per_t loops, separate layout); 0 = off. The trainer computes "  \
    "these targets from (N, x): off 0 a run is not admissible under the benchmark's rules.")  \
  X(bool, full_width_answer, false, 0, 0, "", kHashedOffDefault | kSquaring,                  \
    "Re-entry loops: the answer loss checks every place of the last step's x-slot read-out, " \
    "the training answer written on W places with leading zeros as the loop row writes "      \
    "numbers; false: only the answer's own digits, so the leading places are never trained "  \
    "and can re-enter as arbitrary digits.")
