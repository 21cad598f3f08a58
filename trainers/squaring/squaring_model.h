// Models of the serial task (repeated squaring mod a semiprime), vocabulary 17:
//
//   token + learned absolute position embedding -> e0
//   vanilla (model.arch = "vanilla"): n_layer pre-norm blocks once -> final norm -> tied head.
//     The competition's baseline is n_layer = 1, d_model 128, 4 heads, GELU MLP x4.
//   recurrent depth (model.arch = "pcc"): n_layer blocks split prelude / core / coda
//     (core/architecture.h: 1 -> 0/1/0, 3 -> 1/1/1);
//       e   = Prelude(e0)
//       h_1 = Core(e),  h_i = Core(BO(h_{i-1}, e))  for i = 2..r
//       y   = Coda(BO(h_r, e)) -> final norm -> tied head
//     with the boundary operator BO(h, e) = RMSNorm(h) + alpha e (RMSNorm without gain). With a
//     tied core (core_mode = "tied") r is free at training and at test time; an untied core runs
//     exactly model.passes distinct cores.
//
//   re-entry (squaring.reentry, a tied pcc core): the prompt becomes the loop row of
//     core/squaring/loop_format.h, N <N> X <x> T 1; a step is `steps_of` = model.passes core
//     passes over it (h_1 = Core(e_k), h_i = Core(BO(h_{i-1}, e_k))), then the coda reads the
//     x slot as digits v_k, which re-enter the x slot of step k + 1's row (reentry.h); no hidden
//     state crosses steps. The last step's x slot is the answer, scattered into the prompt's
//     layout.
//
// Attention is bidirectional with a key padding mask (model.attention = "bidirectional", the
// "separate" layout) or causal. Blocks are pre-norm (RMSNorm) with a GELU or SwiGLU MLP.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/run_config.h"
#include "trainers/mlp.h"
#include "trainers/rms_norm.h"
#include "trainers/squaring/squaring_attention.h"

namespace deepladder::trainers::squaring {

struct SquaringBlockImpl : torch::nn::Module {
  SquaringBlockImpl(const ModelConfig& config, bool causal);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_bias);  // (B,T,C)

  RMSNorm attn_norm{nullptr};
  SquaringAttention attn{nullptr};
  RMSNorm mlp_norm{nullptr};
  MLP mlp{nullptr};
};
TORCH_MODULE(SquaringBlock);

// How the looped core runs in one forward pass.
struct LoopPlan {
  int64_t iterations = 1;  // r (ignored by vanilla models; fixed to passes for untied cores)
  int64_t grad_last = 0;   // truncated backprop: only the last k iterations build a graph (0 = all)
};

// The recipe a looped model is built for.
struct LoopRecipe {
  Reentry reentry = Reentry::off;
  int digit_width = 0;
  MlpKind mlp_kind =
      MlpKind::gelu;  // W of the loop row (re-entry only): loopDigitWidth of the tier
};

// What each step of a looped forward pass left behind, when the caller asks (a step is
// model.passes core iterations; r iterations make ceil(r / passes) steps).
struct LoopTrace {
  bool readouts_wanted = false;
  // Per step: re-entry: the x slot's logits (B,W,V); otherwise the logits (B,L,V) decoded from
  // the step's state. Filled when readouts_wanted.
  std::vector<torch::Tensor> readouts;
  std::vector<torch::Tensor> states;  // per step: h (B,L,C) at its end, detached
  torch::Tensor mask;                 // (B,L) 1 on the state's real positions
};

struct SquaringModelImpl : torch::nn::Module {
  // seq_len: rows of the learned position table (the layout's row length).
  SquaringModelImpl(const ModelConfig& config, int64_t seq_len, const LoopRecipe& recipe = {});

  // tokens (B,T) int64; key_bias from keyPaddingBias (or undefined). Returns logits (B,T,V).
  // `trace` (looped models) collects every step's state and, if wanted, its read-out.
  torch::Tensor forward(const torch::Tensor& tokens, const torch::Tensor& key_bias,
                        const LoopPlan& plan, LoopTrace* trace = nullptr);

  // The pieces of forward, for recipes that run the loop in stages (progressive loss) and tests.
  torch::Tensor encode(const torch::Tensor& tokens, const torch::Tensor& key_bias);  // e (B,T,C)
  // Runs `count` core iterations after `done` iterations already gave h (h undefined when done
  // is 0: the first iteration reads e itself).
  torch::Tensor iterate(torch::Tensor h, const torch::Tensor& e, const torch::Tensor& key_bias,
                        int64_t done, int64_t count);
  torch::Tensor decode(const torch::Tensor& h, const torch::Tensor& e,
                       const torch::Tensor& key_bias);  // logits (B,T,V)

  bool looped() const { return recurrent && tied_core; }  // r may differ from passes
  int64_t defaultIterations() const { return recurrent ? passes : 1; }
  int64_t parameterCount() const;

  bool reenters() const { return reentry != Reentry::off; }

  bool recurrent = false;  // arch == "pcc"
  Reentry reentry = Reentry::off;
  int digit_width = 0;
  MlpKind mlp_kind = MlpKind::gelu;
  bool tied_core = true;
  int64_t passes = 1;
  double alpha = 1.0;
  torch::nn::Embedding token_embedding{nullptr};  // (V,C), also the unembedding (tied)
  torch::Tensor positions;                        // (seq_len, C) learned
  torch::nn::ModuleList prelude{nullptr}, core{nullptr}, coda{nullptr};
  RMSNorm final_norm{nullptr};
  torch::nn::Linear head{nullptr};  // only when embeddings are not tied

 private:
  torch::Tensor forwardReentry(const torch::Tensor& tokens, int64_t iterations, LoopTrace* trace);
  torch::Tensor forwardTraced(const torch::Tensor& tokens, const torch::Tensor& key_bias,
                              int64_t iterations, LoopTrace& trace);
  torch::Tensor embedRow(const torch::Tensor& token_embeddings);  // prelude(x + positions)
  torch::Tensor runBlocks(torch::nn::ModuleList& blocks, int64_t first, int64_t count,
                          torch::Tensor x, const torch::Tensor& key_bias);
  int64_t core_width = 0;  // blocks per core pass
};
TORCH_MODULE(SquaringModel);

// BO(h, e) = RMSNorm(h) + alpha e, RMSNorm without gain (eps 1e-6).
torch::Tensor boundaryReinject(const torch::Tensor& h, const torch::Tensor& e, double alpha);

}  // namespace deepladder::trainers::squaring
