// GPT model with vanilla and prelude/core/coda block structures (see gpt.h).
#include "trainers/gpt.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>

#include "core/architecture.h"
#include "trainers/activation_checkpoint.h"
#include "trainers/boundary_operator.h"
#include "trainers/cpu_gemm.h"
#include "trainers/cross_entropy_cpu.h"
#include "trainers/fused_cpu_ops.h"

namespace deepladder::trainers {

namespace {

torch::nn::ModuleList makeStack(const ModelConfig& c, int64_t count) {
  torch::nn::ModuleList stack;
  for (int64_t i = 0; i < count; ++i) stack->push_back(Block(c));
  return stack;
}

// A new stack whose blocks are exact copies of `from`'s, on the same device.
torch::nn::ModuleList copyStack(const ModelConfig& c, torch::nn::ModuleList& from) {
  torch::nn::ModuleList stack;
  for (const auto& module : *from) {
    const auto& source = *module->as<BlockImpl>();
    Block block(c);
    block->to(source.attn->qkv->weight.device(), source.attn->qkv->weight.scalar_type());
    copyBlock(source, *block);
    stack->push_back(block);
  }
  return stack;
}

}  // namespace

void copyBlock(const BlockImpl& from, BlockImpl& to) {
  torch::NoGradGuard no_grad;
  const auto source = from.named_parameters();
  auto target = to.named_parameters();
  TORCH_CHECK(source.size() == target.size(), "copyBlock: blocks of different structure");
  for (const auto& item : source) target[item.key()].copy_(item.value());
}

GPTImpl::GPTImpl(const ModelConfig& c) : config(c) {
  pcc_ = c.arch == Arch::pcc;
  tied_ = pcc_ && c.core_mode == CoreMode::tied;
  passes_ = pcc_ ? c.passes : 1;
  if (pcc_ && passes_ < 1) throw std::invalid_argument("model.passes must be at least 1");
  TORCH_CHECK(c.vocab_padded == 0 || c.vocab_padded >= c.vocab_size, "vocab_padded ",
              c.vocab_padded, " is smaller than vocab_size ", c.vocab_size);
  const int64_t vocab_rows = c.vocab_padded > 0 ? c.vocab_padded : c.vocab_size;
  token_embedding = register_module("token_embedding", torch::nn::Embedding(vocab_rows, c.d_model));
  if (c.embed_norm)
    embed_norm = register_module("embed_norm", RMSNorm(c.d_model, c.norm_eps, c.norm_gain));
  if (!pcc_) {
    blocks = register_module("blocks", makeStack(c, c.n_layer));
  } else {
    const BlockSplit split = splitPreludeCoreCoda(c.n_layer);
    prelude = register_module("prelude", makeStack(c, split.prelude));
    cores = register_module("cores", torch::nn::ModuleList());
    for (int64_t k = 0; k < (tied_ ? 1 : passes_); ++k) cores->push_back(makeStack(c, split.core));
    coda = register_module("coda", makeStack(c, split.coda));
  }
  final_norm = register_module("final_norm", RMSNorm(c.d_model, c.norm_eps, c.norm_gain));
  if (!c.tie_embeddings)
    unembedding = register_module(
        "unembedding",
        torch::nn::Linear(torch::nn::LinearOptions(c.d_model, vocab_rows).bias(false)));
  initialiseWeights();
}

void GPTImpl::initialiseWeights() {
  torch::NoGradGuard no_grad;
  if (config.init == InitScheme::recipe) {
    initialiseRecipeWeights();
    return;
  }
  const double std_dev = 0.02;
  const double depth = static_cast<double>(architectureShape(config).before.executed_blocks);
  const double residual_std = std_dev / std::sqrt(2.0 * depth);
  token_embedding->weight.normal_(0.0, std_dev);
  auto init = [&](torch::nn::ModuleList& stack) {
    for (const auto& module : *stack) {
      auto block = module->as<BlockImpl>();
      block->attn->qkv->weight.normal_(0.0, std_dev);
      block->attn->proj->weight.normal_(0.0, residual_std);
      block->mlp->up->weight.normal_(0.0, std_dev);
      block->mlp->down->weight.normal_(0.0, residual_std);
    }
  };
  if (!pcc_) {
    init(blocks);
  } else {
    init(prelude);
    for (const auto& core : *cores) {
      torch::nn::ModuleList stack(std::dynamic_pointer_cast<torch::nn::ModuleListImpl>(core));
      init(stack);
    }
    init(coda);
  }
  if (unembedding) unembedding->weight.normal_(0.0, std_dev);
}

void GPTImpl::initialiseRecipeWeights() {
  TORCH_CHECK(!config.tie_embeddings,
              "init = \"recipe\" zeroes the head, which a tied embedding cannot be; set "
              "tie_embeddings = false");
  const double bound = config.init_uniform / std::sqrt(static_cast<double>(config.d_model));
  token_embedding->weight.normal_(0.0, config.init_embed_std);
  forEachBlock([&](BlockImpl& block) {
    block.attn->qkv->weight.uniform_(-bound, bound);  // q, k, v
    block.attn->proj->weight.zero_();
    block.mlp->up->weight.uniform_(-bound, bound);  // gate and up (or the GELU up)
    block.mlp->down->weight.zero_();
  });
  unembedding->weight.zero_();
}

void GPTImpl::forEachBlock(const std::function<void(BlockImpl&)>& visit) {
  auto each = [&](const torch::nn::ModuleList& stack) {
    for (const auto& module : *stack) visit(*module->as<BlockImpl>());
  };
  if (!pcc_) {
    each(blocks);
    return;
  }
  each(prelude);
  for (const auto& core : *cores)
    each(torch::nn::ModuleList(std::dynamic_pointer_cast<torch::nn::ModuleListImpl>(core)));
  each(coda);
}

torch::Tensor GPTImpl::embed(const torch::Tensor& idx) {
  auto x = token_embedding(idx);  // (B,T,C)
  return embed_norm ? embed_norm(x) : x;
}

torch::Tensor GPTImpl::unembeddingWeight() const {
  return unembedding ? unembedding->weight : token_embedding->weight;
}

torch::Tensor GPTImpl::decodingWeight() const {
  auto weight = unembeddingWeight().narrow(0, 0, config.vocab_size);  // (V,C)
  return config.output_scale == 1.0 ? weight : weight * config.output_scale;
}

torch::Tensor GPTImpl::decode(const torch::Tensor& hidden) {
  auto h = final_norm(hidden);                       // (B,T,C)
  auto logits = fastLinear(h, unembeddingWeight());  // (B,T,V_padded)
  if (logits.scalar_type() != torch::kFloat32)
    logits = logits.to(torch::kFloat32);  // bf16 autocast: the loss sees float32 logits
  const bool padded = logits.size(-1) != config.vocab_size;
  if (padded) logits = logits.narrow(-1, 0, config.vocab_size);  // (B,T,V)
  if (config.output_scale != 1.0) return logits * config.output_scale;
  return padded ? logits.contiguous() : logits;
}

int64_t GPTImpl::executedBlocks() const {
  if (!pcc_) return static_cast<int64_t>(blocks->size());
  const auto& first = *cores->ptr(0)->as<torch::nn::ModuleListImpl>();
  return static_cast<int64_t>(prelude->size() + coda->size()) +
         passes_ * static_cast<int64_t>(first.size());
}

GPTImpl::ForwardSchedule GPTImpl::schedule() {
  ForwardSchedule s;
  auto add = [&](torch::nn::ModuleList& stack, bool boundary_first) {
    for (const auto& module : *stack) {
      const double position = static_cast<double>(s.blocks.size() + 1);
      s.blocks.push_back({module->as<BlockImpl>(),
                          config.layernorm_scaling ? 1.0 / std::sqrt(position) : 1.0,
                          boundary_first});
      boundary_first = false;
    }
    return boundary_first;  // still pending when the stack was empty
  };
  if (!pcc_) {
    add(blocks, false);
    const int64_t every = config.boundary_every;
    const int64_t n = static_cast<int64_t>(s.blocks.size());
    if (every > 0) {
      s.anchor_after = config.boundary_source;  // h_source (0 = the embedding output)
      // BO after block l (1-based) when l % every == 0, l < n and l > source: before block l + 1.
      for (int64_t l = every; l < n; l += every)
        if (l > config.boundary_source) s.blocks[l].boundary_before = true;
    }
    return s;
  }
  add(prelude, false);
  s.anchor_after = static_cast<int64_t>(s.blocks.size());  // e = the prelude output
  const int64_t distinct = static_cast<int64_t>(cores->size());
  bool pending = false;
  for (int64_t k = 0; k < passes_; ++k) {
    torch::nn::ModuleList core(
        std::dynamic_pointer_cast<torch::nn::ModuleListImpl>(cores[k % distinct]));
    pending = add(core, k > 0 || pending);
  }
  s.boundary_at_end = add(coda, true);  // BO(h_K, e) before the coda (or at the end without one)
  return s;
}

torch::Tensor GPTImpl::runBlocks(const ForwardSchedule& s, size_t begin, size_t end,
                                 torch::Tensor x, const torch::Tensor& anchor) {
  for (size_t i = begin; i < end; ++i) {
    const ExecutedBlock& b = s.blocks[i];
    if (b.boundary_before)
      x = boundaryOperator(x, anchor, config.alpha, config.norm_eps);  // (B,T,C)
    x = b.block->forward(x, b.norm_scale);                             // (B,T,C)
  }
  return x;
}

void GPTImpl::setActivationCheckpointing(ActivationCheckpointing mode, int64_t k) {
  TORCH_CHECK(k >= 0, "activation checkpointing: k must be >= 0");
  checkpointing_ = mode;
  checkpoint_k_ = k;
}

int64_t GPTImpl::checkpointStretch(int64_t executed_blocks) const {
  switch (checkpointing_) {
    case ActivationCheckpointing::none:
      return 0;
    case ActivationCheckpointing::blocks:
      return 1;
    case ActivationCheckpointing::every_k:
      if (checkpoint_k_ > 0) return checkpoint_k_;
      return std::max<int64_t>(
          1, std::llround(std::sqrt(static_cast<double>(std::max<int64_t>(1, executed_blocks)))));
  }
  return 0;
}

torch::Tensor GPTImpl::forwardCheckpointed(const ForwardSchedule& s, torch::Tensor x,
                                           torch::Tensor& anchor) {
  const size_t n = s.blocks.size();
  const size_t k = static_cast<size_t>(checkpointStretch(static_cast<int64_t>(n)));
  auto shared = std::make_shared<const ForwardSchedule>(s);
  size_t begin = 0;
  while (begin < n) {
    size_t end = std::min(n, begin + k);
    // A stretch ends where the anchor is taken, so the anchor is an input of the ones after.
    if (s.anchor_after > static_cast<int64_t>(begin) && s.anchor_after < static_cast<int64_t>(end))
      end = static_cast<size_t>(s.anchor_after);
    bool reads_anchor = false;
    std::vector<torch::Tensor> parameters;
    for (size_t i = begin; i < end; ++i) {
      reads_anchor = reads_anchor || s.blocks[i].boundary_before;
      for (const auto& p : s.blocks[i].block->parameters()) parameters.push_back(p);
    }
    std::vector<torch::Tensor> extra;
    if (reads_anchor) extra.push_back(anchor);
    SegmentForward stretch = [this, shared, begin, end](const torch::Tensor& input,
                                                        const std::vector<torch::Tensor>& more) {
      return runBlocks(*shared, begin, end, input, more.empty() ? torch::Tensor() : more[0]);
    };
    x = checkpointedSegment(stretch, x, extra, parameters);  // (B,T,C)
    if (s.anchor_after == static_cast<int64_t>(end)) anchor = x;
    begin = end;
  }
  return x;
}

torch::Tensor GPTImpl::forward(const torch::Tensor& idx, std::vector<torch::Tensor>* residuals) {
  return decode(hiddenStates(idx, residuals));  // (B,T,V)
}

torch::Tensor GPTImpl::hiddenStates(const torch::Tensor& idx,
                                    std::vector<torch::Tensor>* residuals) {
  TORCH_CHECK(idx.dim() == 2, "GPT expects (B,T) token ids");
  TORCH_CHECK(idx.size(1) <= config.seq_len, "sequence of ", idx.size(1),
              " tokens is longer than seq_len ", config.seq_len);
  auto x = embed(idx);  // (B,T,C)
  if (residuals) residuals->push_back(x);
  const ForwardSchedule s = schedule();
  torch::Tensor anchor = s.anchor_after == 0 ? x : torch::Tensor();
  if (checkpointing_ != ActivationCheckpointing::none && !residuals && is_training() &&
      torch::GradMode::is_enabled()) {
    x = forwardCheckpointed(s, x, anchor);
  } else {
    for (size_t i = 0; i < s.blocks.size(); ++i) {
      x = runBlocks(s, i, i + 1, x, anchor);  // (B,T,C)
      if (residuals) residuals->push_back(x);
      if (s.anchor_after == static_cast<int64_t>(i + 1)) anchor = x;
    }
  }
  if (s.boundary_at_end) x = boundaryOperator(x, anchor, config.alpha, config.norm_eps);
  return x;  // (B,T,C)
}

torch::Tensor GPTImpl::loss(const torch::Tensor& idx, const torch::Tensor& targets) {
  const auto hidden = hiddenStates(idx);  // (B,T,C)
  if (useFusedCpuPath(hidden)) {
    // The head's padded output straight into the fused loss: no cut-off or scaled copies.
    auto logits = fastLinear(final_norm(hidden), unembeddingWeight());  // (B,T,V_padded)
    RECORD_FUNCTION("deepladder::cross_entropy", std::vector<c10::IValue>());
    return crossEntropyCpu(logits.view({-1, logits.size(-1)}), targets.reshape({-1}),
                           config.vocab_size, config.output_scale);
  }
  auto logits = decode(hidden);  // (B,T,V)
  RECORD_FUNCTION("deepladder::cross_entropy", std::vector<c10::IValue>());
  return torch::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}),
                                              targets.reshape({-1}));
}

int64_t GPTImpl::parameterCount() const {
  int64_t total = 0;
  for (const auto& p : parameters()) total += p.numel();  // parameters() lists shared ones once
  return total;
}

void GPTImpl::setPasses(int64_t passes) {
  if (!pcc_)
    throw std::invalid_argument(
        "test-time passes need a looped or recurrent model (arch = \"pcc\"); this one is vanilla");
  if (passes < 1) throw std::invalid_argument("passes must be at least 1");
  passes_ = passes;
}

std::string GPTImpl::grow() {
  if (grown_) throw std::logic_error("GPT::grow: the model has grown already");
  const ArchitectureShape shape = architectureShape(config);
  if (!shape.grows) throw std::logic_error("GPT::grow: this config does not grow");
  grown_ = true;
  // New blocks are built (their default init draws from the CPU generator) and then overwritten:
  // keep the generator where it was, so growth consumes no randomness.
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  const torch::Tensor rng_state = generator.get_state();
  struct RestoreRng {
    at::Generator& g;
    const torch::Tensor& s;
    ~RestoreRng() { g.set_state(s); }
  } restore{generator, rng_state};
  if (!pcc_) {
    // The middle section is duplicated in place (core/architecture.h, grownStackLayout): a new
    // list holds the trained blocks (the same modules, so their parameters keep their identity
    // and optimizer state) and the copies in the grown order.
    const int64_t low = static_cast<int64_t>(blocks->size());
    torch::nn::ModuleList grown;
    for (const StackSlot& slot : grownStackLayout(low, config.grow_layers)) {
      const auto& source = blocks[slot.source];
      if (!slot.copy) {
        grown->push_back(source);
        continue;
      }
      const auto& from = *source->as<BlockImpl>();
      Block block(config);
      block->to(from.attn->qkv->weight.device(), from.attn->qkv->weight.scalar_type());
      copyBlock(from, *block);
      grown->push_back(block);
    }
    blocks = replace_module("blocks", grown);
    return "layers " + std::to_string(low) + " -> " + std::to_string(config.grow_layers);
  }
  const int64_t low = passes_;
  if (!tied_) {
    const int64_t distinct = static_cast<int64_t>(cores->size());
    for (int64_t j = distinct; j < config.grow_passes; ++j) {
      torch::nn::ModuleList source(
          std::dynamic_pointer_cast<torch::nn::ModuleListImpl>(cores[j % distinct]));
      cores->push_back(copyStack(config, source));
    }
  }
  passes_ = config.grow_passes;
  return "K " + std::to_string(low) + " -> " + std::to_string(passes_);
}

}  // namespace deepladder::trainers
