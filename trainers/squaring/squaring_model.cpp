// Baseline and recurrent-depth models of the serial task (see squaring_model.h).
#include "trainers/squaring/squaring_model.h"

#include "core/architecture.h"
#include "core/squaring/loop_format.h"
#include "core/squaring/tokens.h"
#include "trainers/cpu_gemm.h"
#include "trainers/squaring/reentry.h"
#if __has_include("trainers/boundary_operator.h")
#include "trainers/boundary_operator.h"
#define DEEPLADDER_SQUARING_SHARED_BO 1
#endif

namespace deepladder::trainers::squaring {

namespace sq = ::deepladder::squaring;

SquaringBlockImpl::SquaringBlockImpl(const ModelConfig& config, bool causal) {
  attn_norm = register_module("attn_norm", RMSNorm(config.d_model));
  attn = register_module("attn", SquaringAttention(config.d_model, config.n_head, causal));
  mlp_norm = register_module("mlp_norm", RMSNorm(config.d_model));
  mlp = register_module("mlp", MLP(config.d_model, config.mlpHidden(), config.mlp));
}

torch::Tensor SquaringBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& key_bias) {
  auto h = x + attn(attn_norm(x), key_bias);
  return h + mlp(mlp_norm(h));
}

torch::Tensor boundaryReinject(const torch::Tensor& h, const torch::Tensor& e, double alpha) {
#ifdef DEEPLADDER_SQUARING_SHARED_BO
  return boundaryOperator(h, e, alpha);  // the boundary operator (fused on CUDA)
#endif
  const auto inv_rms = h.pow(2).mean(-1, /*keepdim=*/true).add(1e-6).rsqrt();  // (B,T,1)
  return h * inv_rms + alpha * e;
}

SquaringModelImpl::SquaringModelImpl(const ModelConfig& config, int64_t seq_len,
                                     const LoopRecipe& recipe)
    : recurrent(config.arch == Arch::pcc),
      reentry(recipe.reentry),
      digit_width(recipe.digit_width),
      mlp_kind(config.mlp),
      tied_core(config.core_mode == CoreMode::tied),
      passes(std::max<int64_t>(1, config.passes)),
      alpha(config.alpha) {
  TORCH_CHECK(reentry == Reentry::off || (recurrent && tied_core && digit_width > 0),
              "re-entry needs a tied pcc core and a digit width");
  const bool causal = config.attention == AttentionMask::causal;
  token_embedding =
      register_module("token_embedding", torch::nn::Embedding(config.vocab_size, config.d_model));
  torch::nn::init::normal_(token_embedding->weight, 0.0, 0.02);
  positions = register_parameter("positions", torch::randn({seq_len, config.d_model}) * 0.02);
  prelude = register_module("prelude", torch::nn::ModuleList());
  core = register_module("core", torch::nn::ModuleList());
  coda = register_module("coda", torch::nn::ModuleList());
  if (!recurrent) {
    for (int64_t i = 0; i < config.n_layer; ++i) core->push_back(SquaringBlock(config, causal));
    core_width = config.n_layer;
  } else {
    const BlockSplit split = splitPreludeCoreCoda(config.n_layer);
    for (int64_t i = 0; i < split.prelude; ++i) prelude->push_back(SquaringBlock(config, causal));
    const int64_t cores = tied_core ? 1 : passes;
    for (int64_t i = 0; i < cores * split.core; ++i) core->push_back(SquaringBlock(config, causal));
    for (int64_t i = 0; i < split.coda; ++i) coda->push_back(SquaringBlock(config, causal));
    core_width = split.core;
  }
  final_norm = register_module("final_norm", RMSNorm(config.d_model));
  if (!config.tie_embeddings)
    head = register_module(
        "head",
        torch::nn::Linear(torch::nn::LinearOptions(config.d_model, config.vocab_size).bias(false)));
}

torch::Tensor SquaringModelImpl::runBlocks(torch::nn::ModuleList& blocks, int64_t first,
                                           int64_t count, torch::Tensor x,
                                           const torch::Tensor& key_bias) {
  for (int64_t i = first; i < first + count; ++i)
    x = blocks->ptr<SquaringBlockImpl>(static_cast<size_t>(i))->forward(x, key_bias);
  return x;
}

torch::Tensor SquaringModelImpl::encode(const torch::Tensor& tokens,
                                        const torch::Tensor& key_bias) {
  const int64_t T = tokens.size(1);
  auto e = token_embedding(tokens) + positions.narrow(0, 0, T);  // (B,T,C)
  return runBlocks(prelude, 0, static_cast<int64_t>(prelude->size()), e, key_bias);
}

torch::Tensor SquaringModelImpl::embedRow(const torch::Tensor& token_embeddings) {
  const auto e = token_embeddings + positions.narrow(0, 0, token_embeddings.size(1));  // (B,T,C)
  return runBlocks(prelude, 0, static_cast<int64_t>(prelude->size()), e, torch::Tensor());
}

torch::Tensor SquaringModelImpl::iterate(torch::Tensor h, const torch::Tensor& e,
                                         const torch::Tensor& key_bias, int64_t done,
                                         int64_t count) {
  for (int64_t i = done; i < done + count; ++i) {
    const torch::Tensor input = (i == 0 || !recurrent) ? e : boundaryReinject(h, e, alpha);
    const int64_t first = tied_core ? 0 : (i % passes) * core_width;
    h = runBlocks(core, first, core_width, input, key_bias);
  }
  return h;
}

torch::Tensor SquaringModelImpl::decode(const torch::Tensor& h, const torch::Tensor& e,
                                        const torch::Tensor& key_bias) {
  torch::Tensor y = recurrent ? boundaryReinject(h, e, alpha) : h;
  y = final_norm(runBlocks(coda, 0, static_cast<int64_t>(coda->size()), y, key_bias));
  const auto& unembedding = head ? head->weight : token_embedding->weight;  // (V,C)
  return fastLinear(y, unembedding);                                        // (B,T,V)
}

torch::Tensor SquaringModelImpl::forward(const torch::Tensor& tokens, const torch::Tensor& key_bias,
                                         const LoopPlan& plan, LoopTrace* trace) {
  const int64_t r = !recurrent ? 1 : (tied_core ? std::max<int64_t>(1, plan.iterations) : passes);
  if (reenters()) return forwardReentry(tokens, r, trace);
  if (trace && looped()) return forwardTraced(tokens, key_bias, r, *trace);
  const auto e = encode(tokens, key_bias);
  torch::Tensor h;
  const int64_t k = plan.grad_last > 0 ? std::min(plan.grad_last, r) : r;
  if (k < r) {  // truncated backprop: the first r - k iterations build no graph
    {
      torch::NoGradGuard no_grad;
      h = iterate(h, e.detach(), key_bias, 0, r - k);
    }
    h = h.detach();
  }
  h = iterate(h, e, key_bias, r - k, k);
  return decode(h, e, key_bias);
}

// The plain loop, step by step: a step is `passes` iterations (the last one may be shorter).
torch::Tensor SquaringModelImpl::forwardTraced(const torch::Tensor& tokens,
                                               const torch::Tensor& key_bias, int64_t iterations,
                                               LoopTrace& trace) {
  trace.mask = tokens.ne(sq::kPad).to(torch::kFloat32);  // (B,L)
  const auto e = encode(tokens, key_bias);
  torch::Tensor h, logits;
  for (int64_t done = 0; done < iterations; done += passes) {
    const int64_t count = std::min(passes, iterations - done);
    h = iterate(h, e, key_bias, done, count);
    trace.states.push_back(h.detach());
    const bool last = done + count >= iterations;
    if (last || trace.readouts_wanted) logits = decode(h, e, key_bias);
    if (trace.readouts_wanted) trace.readouts.push_back(logits);
  }
  return logits;
}

// Re-entry: every step runs on the loop row whose x slot holds the previous step's read-out.
torch::Tensor SquaringModelImpl::forwardReentry(const torch::Tensor& tokens, int64_t iterations,
                                                LoopTrace* trace) {
  const LoopRows rows = loopRows(tokens, digit_width);
  const int64_t start = sq::loopSlotStart(digit_width), W = digit_width;
  const auto base = token_embedding(rows.tokens);  // (B,R,C)
  if (trace) trace->mask = torch::ones_like(rows.tokens, torch::kFloat32);
  torch::Tensor e = embedRow(base), slot;
  for (int64_t done = 0; done < iterations; done += passes) {
    if (done > 0) {  // the previous step's digits re-enter the x slot
      const auto entered = reenterDigits(slot, token_embedding->weight, reentry);  // (B,W,C)
      const int64_t tail = base.size(1) - start - W;
      e = embedRow(
          torch::cat({base.narrow(1, 0, start), entered, base.narrow(1, start + W, tail)}, 1));
    }
    const auto h =
        iterate(torch::Tensor(), e, torch::Tensor(), 0, std::min(passes, iterations - done));
    slot = decode(h, e, torch::Tensor()).narrow(1, start, W);  // (B,W,V)
    if (trace) {
      trace->states.push_back(h.detach());
      if (trace->readouts_wanted) trace->readouts.push_back(slot);
    }
  }
  return toAnswerFrame(slot, rows.answer_index);
}

int64_t SquaringModelImpl::parameterCount() const {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

}  // namespace deepladder::trainers::squaring
