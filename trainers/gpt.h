// Decoder-only GPT: token embedding, pre-norm blocks (RMSNorm, causal rotary attention, GELU or
// SwiGLU MLP), final RMSNorm, unembedding tied to the embedding or separate. No biases, no
// dropout, no learned positions (rotary only). Its parameter count equals
// deepladder::countParameters(config).total exactly (total_after_growth once grown).
//
// Block structures (ModelConfig::arch, core/architecture.h):
//   vanilla  a plain stack `blocks` of n_layer blocks; optional plain-stack ablations: every
//            boundary_every blocks (between blocks, not after the last) h <- BO(h, h_j, alpha)
//            with h_j the residual after block j = boundary_source (0 = embedding output).
//   pcc      `prelude`, `cores`, `coda` (thirds, core/architecture.h's split). e = Prelude(emb);
//            h_1 = Core_1(e), h_k = Core_k(BO(h_{k-1}, e)); y = Coda(BO(h_K, e)). Tied: one core
//            stack (cores[0]) applied K times; untied: K distinct core stacks (cores[k]).
//   layernorm_scaling: the pre-norm outputs of the block executed l-th (1-based, counting a looped
//            core once per pass) are scaled by 1/sqrt(l).
// Growth (grow()): untied cores K_low -> K_high with core j a copy of core j mod K_low; tied K
// switches; a vanilla stack n_layer -> grow_layers duplicates its middle section in place
// (core/architecture.h, grownStackLayout: deep_vanilla_grow's p+2c+o blocks become prelude, the
// two core sections, their copies, coda, the order untied_grow gives its cores).
//
// `forward` can hand back the residual stream after every executed block for a logit lens
// (decode each state with `decode`).
//
// Every architecture runs as one flat schedule of executed blocks (ForwardSchedule): each block
// optionally preceded by the boundary operator h <- BO(h, anchor), where the anchor is the state
// after a given executed block (the prelude output e for pcc, h_source for the plain-stack form).
// Activation checkpointing (setActivationCheckpointing) cuts that schedule into stretches of k
// executed blocks (k = 1 for "blocks"; a stretch also ends where the anchor is taken) and runs
// each through trainers/activation_checkpoint.h while training with autograd on.
//
// Growth-recipe options (ModelConfig): norm_gain = false (no norm has a gain, so norms
// have no parameters); embed_norm (the embedding output is RMS-normalized before block 1, so a pcc
// prelude sees it normalized); qk_norm; residual_scale r and output_scale m_out (logits = m_out
// W_head Norm(h)); vocab_padded rows for the embedding and head, with logits cut back to
// vocab_size in `decode` (so every user of logits, the loss, validation and the lens, sees
// vocab_size columns); init = "recipe" (initialiseWeights).
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "core/run_config.h"
#include "trainers/block.h"
#include "trainers/rms_norm.h"

namespace deepladder::trainers {

struct GPTImpl : torch::nn::Module {
  explicit GPTImpl(const ModelConfig& config);

  // idx (B,T) int64 -> logits (B,T,V). When `residuals` is given it receives executed_blocks + 1
  // tensors of (B,T,C): entry 0 is the embedding output, entry l the residual stream after the
  // l-th executed block (a block's own output, before any boundary operator that follows it).
  torch::Tensor forward(const torch::Tensor& idx, std::vector<torch::Tensor>* residuals = nullptr);
  // forward without the decode: the residual stream after the last block (and the boundary
  // operator that may follow it), (B,T,C).
  torch::Tensor hiddenStates(const torch::Tensor& idx,
                             std::vector<torch::Tensor>* residuals = nullptr);

  torch::Tensor embed(const torch::Tensor& idx);  // (B,T) -> (B,T,C), normalized with embed_norm
  // (B,T,C) -> final norm -> m_out x head -> (B,T,V) with V = vocab_size (padded rows cut off).
  torch::Tensor decode(const torch::Tensor& hidden);
  torch::Tensor unembeddingWeight() const;  // (V_padded,C): the head's (or tied embedding's) rows
  // The matrix decode applies after the final norm: m_out x the first vocab_size rows, (V,C).
  torch::Tensor decodingWeight() const;

  // Mean next-token cross-entropy of idx (B,T) against targets (B,T).
  torch::Tensor loss(const torch::Tensor& idx, const torch::Tensor& targets);

  // Initialisation from the current torch RNG. init = "gpt2": N(0, 0.02) for embeddings and
  // matrices, N(0, 0.02 / sqrt(2 L)) for the projections that write into the residual, with L the
  // executed blocks before growth (n_layer for vanilla). init = "recipe": embedding
  // N(0, init_embed_std^2); q, k, v, gate, up U(-u/sqrt(w), u/sqrt(w)) with u = init_uniform and
  // w = d_model; attention output, MLP down and head zero (so every logit is 0 and the first
  // loss is exactly ln vocab_size). Norm gains are ones either way.
  void initialiseWeights();

  int64_t parameterCount() const;  // distinct trainable parameters (tied weights once)

  // --- depth ------------------------------------------------------------------------------------
  bool isPcc() const { return pcc_; }
  bool isTied() const { return tied_; }
  bool grown() const { return grown_; }
  int64_t passes() const { return passes_; }  // K in use (pcc); 1 for vanilla
  int64_t executedBlocks() const;             // blocks applied per token at the current K
  // Test-time depth: evaluate a pcc model at K' core passes (tied: the core K' times; untied:
  // pass k uses core k mod the number of cores). Throws std::invalid_argument for vanilla models.
  void setPasses(int64_t passes);
  // Grows the model once (see the header comment); returns e.g. "K 2 -> 4" or "layers 8 -> 12".
  // New blocks are exact copies, on the device of the blocks they copy.
  std::string grow();

  // --- activation checkpointing ---------------------------------------------------------------
  // none (default), blocks, or every_k with `k` executed blocks a stretch (0: round(sqrt(L)) of
  // the L blocks executed at the time of each forward, so it follows growth).
  void setActivationCheckpointing(ActivationCheckpointing mode, int64_t k = 0);
  // Executed blocks per recomputed stretch for L executed blocks; 0 when not checkpointing.
  int64_t checkpointStretch(int64_t executed_blocks) const;

  ModelConfig config;
  torch::nn::Embedding token_embedding{nullptr};  // (V, C)
  torch::nn::ModuleList blocks{nullptr};          // vanilla
  torch::nn::ModuleList prelude{nullptr};         // pcc
  torch::nn::ModuleList cores{nullptr};           // pcc: ModuleLists, one per distinct core
  torch::nn::ModuleList coda{nullptr};            // pcc
  RMSNorm embed_norm{nullptr};                    // null unless config.embed_norm
  RMSNorm final_norm{nullptr};
  torch::nn::Linear unembedding{nullptr};  // (C) -> (V); null when tied to token_embedding

 private:
  // One executed block: BO(h, anchor) first when boundary_before, then the block with its
  // pre-norm scale (1/sqrt(position) with layernorm_scaling).
  struct ExecutedBlock {
    BlockImpl* block = nullptr;
    double norm_scale = 1.0;
    bool boundary_before = false;
  };
  struct ForwardSchedule {
    std::vector<ExecutedBlock> blocks;
    int64_t anchor_after = -1;     // anchor = the state after this many blocks; -1: none
    bool boundary_at_end = false;  // BO(h, anchor) after the last block (pcc without a coda)
  };
  ForwardSchedule schedule();
  // Blocks [begin, end) of `s` applied to x; `anchor` may be undefined when none of them reads it.
  torch::Tensor runBlocks(const ForwardSchedule& s, size_t begin, size_t end, torch::Tensor x,
                          const torch::Tensor& anchor);
  torch::Tensor forwardCheckpointed(const ForwardSchedule& s, torch::Tensor x,
                                    torch::Tensor& anchor);
  void initialiseRecipeWeights();
  void forEachBlock(const std::function<void(BlockImpl&)>& visit);  // every distinct block

  bool pcc_ = false;
  bool tied_ = false;
  bool grown_ = false;
  int64_t passes_ = 1;
  ActivationCheckpointing checkpointing_ = ActivationCheckpointing::none;
  int64_t checkpoint_k_ = 0;
};
TORCH_MODULE(GPT);

// Copies every parameter of `from` into `to` (same structure), exactly.
void copyBlock(const BlockImpl& from, BlockImpl& to);

}  // namespace deepladder::trainers
