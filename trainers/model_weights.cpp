// A GPT's weights in and out of safetensors files (see model_weights.h).
#include "trainers/model_weights.h"

#include <cmath>
#include <map>

#include "core/errors.h"
#include "trainers/rms_norm.h"

namespace deepladder::trainers {

safetensors::NamedTensors modelWeights(GPT& model) {
  safetensors::NamedTensors out;
  for (const auto& item : model->named_parameters()) out.emplace_back(item.key(), item.value());
  return out;
}

void loadInitialWeights(GPT& model, const std::string& path) {
  const safetensors::File file = safetensors::read(path);
  std::map<std::string, torch::Tensor> by_name(file.tensors.begin(), file.tensors.end());
  const std::string hint =
      " The file must hold the model this run's [model] describes (before growth for a grow "
      "arm), under deepladder's parameter names (docs/weights.md)";
  std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;
  for (const auto& item : model->named_parameters()) {
    const auto found = by_name.find(item.key());
    if (found == by_name.end())
      throw UserError(path + ": train.init_from: tensor \"" + item.key() +
                      "\" is missing (the model needs it with shape " +
                      c10::str(item.value().sizes()) + ")." + hint);
    const torch::Tensor& saved = found->second;
    if (saved.sizes() != item.value().sizes())
      throw UserError(path + ": train.init_from: tensor \"" + item.key() + "\" has shape " +
                      c10::str(saved.sizes()) + ", the model needs " +
                      c10::str(item.value().sizes()) + "." + hint);
    if (!saved.is_floating_point())
      throw UserError(path + ": train.init_from: tensor \"" + item.key() + "\" is " +
                      safetensors::dtypeName(saved.scalar_type()) + ", not a floating-point type." +
                      hint);
    // Weights that are not finite would train to NaN at once and read as a divergence.
    const torch::Tensor not_finite = torch::logical_not(torch::isfinite(saved)).flatten();
    if (const int64_t count = not_finite.sum().item<int64_t>(); count > 0) {
      const int64_t first = not_finite.nonzero()[0][0].item<int64_t>();
      throw UserError(path + ": train.init_from: tensor \"" + item.key() + "\" holds " +
                      std::to_string(count) + " non-finite value(s) (NaN or Inf; the first at " +
                      "flat index " + std::to_string(first) + " is " +
                      c10::str(saved.flatten()[first].item<double>()) +
                      "). Start from weights that are all finite: export them from a run that "
                      "did not diverge");
    }
    copies.emplace_back(item.value(), saved);
    by_name.erase(found);
  }
  if (!by_name.empty())
    throw UserError(path + ": train.init_from: tensor \"" + by_name.begin()->first +
                    "\" is not a parameter of this model." + hint);
  torch::NoGradGuard no_grad;
  for (auto& [parameter, saved] : copies) parameter.copy_(saved);
}

// --- Hugging Face Llama -------------------------------------------------------------------------

std::optional<std::string> hfLlamaProblem(const ModelConfig& c) {
  if (c.arch != Arch::vanilla)
    return "arch = \"pcc\": Llama has no prelude/core/coda passes nor the boundary operator "
           "between them";
  if (c.boundary_every > 0) return "boundary_every: Llama has no boundary operator between blocks";
  if (!c.norm_gain)
    return "norm_gain = false: Llama's RMSNorms all have a learned gain (writing ones would "
           "add parameters the model never had)";
  if (c.qk_norm) return "qk_norm: Llama has no RMSNorm on queries and keys";
  if (c.embed_norm) return "embed_norm: Llama does not normalize the embedding output";
  if (c.mlp != MlpKind::swiglu) return "mlp = \"gelu\": Llama's MLP is SwiGLU";
  if (c.positions != Positions::rope) return "positions = \"learned\": Llama uses rotary only";
  if (c.attention != AttentionMask::causal) return "attention = \"bidirectional\"";
  if (c.residual_scale != 1.0) return "residual_scale != 1: Llama adds its branches unscaled";
  if (c.output_scale != 1.0) return "output_scale != 1: Llama's logits are unscaled";
  if (c.layernorm_scaling) return "layernorm_scaling: Llama does not scale its pre-norm outputs";
  if (c.vocab_padded > 0 && c.vocab_padded != c.vocab_size)
    return "vocab_padded: deepladder drops the padded rows' logits, Llama would keep them";
  return std::nullopt;
}

safetensors::NamedTensors toHfLlama(GPT& model) {
  const ModelConfig& c = model->config;
  if (const auto problem = hfLlamaProblem(c))
    throw UserError("--names hf-llama: this model is not a Llama: " + *problem +
                    ". Export it with deepladder's names (the default)");
  safetensors::NamedTensors out;
  out.emplace_back("model.embed_tokens.weight", model->token_embedding->weight);
  const int64_t C = c.d_model;
  for (size_t i = 0; i < model->blocks->size(); ++i) {
    const auto& block = *model->blocks[i]->as<BlockImpl>();
    const std::string p = "model.layers." + std::to_string(i) + ".";
    const torch::Tensor qkv = block.attn->qkv->weight;  // (3C, C), rows [q; k; v]
    out.emplace_back(p + "input_layernorm.weight", block.attn_norm->gain);
    out.emplace_back(p + "self_attn.q_proj.weight", qkv.narrow(0, 0, C));
    out.emplace_back(p + "self_attn.k_proj.weight", qkv.narrow(0, C, C));
    out.emplace_back(p + "self_attn.v_proj.weight", qkv.narrow(0, 2 * C, C));
    out.emplace_back(p + "self_attn.o_proj.weight", block.attn->proj->weight);
    out.emplace_back(p + "post_attention_layernorm.weight", block.mlp_norm->gain);
    const torch::Tensor up = block.mlp->up->weight;  // (2H, C), rows [gate; up]
    const int64_t H = block.mlp->hidden;
    out.emplace_back(p + "mlp.gate_proj.weight", up.narrow(0, 0, H));
    out.emplace_back(p + "mlp.up_proj.weight", up.narrow(0, H, H));
    out.emplace_back(p + "mlp.down_proj.weight", block.mlp->down->weight);
  }
  out.emplace_back("model.norm.weight", model->final_norm->gain);
  if (model->unembedding) out.emplace_back("lm_head.weight", model->unembedding->weight);
  return out;
}

nlohmann::json hfLlamaConfig(const ModelConfig& c, GPT& model) {
  const auto& first = *model->blocks[0]->as<BlockImpl>();
  return {{"architectures", {"LlamaForCausalLM"}},
          {"model_type", "llama"},
          {"vocab_size", c.vocab_size},
          {"hidden_size", c.d_model},
          {"intermediate_size", first.mlp->hidden},
          {"num_hidden_layers", static_cast<int64_t>(model->blocks->size())},
          {"num_attention_heads", c.n_head},
          {"num_key_value_heads", c.n_head},
          {"head_dim", c.d_model / c.n_head},
          {"hidden_act", "silu"},
          {"max_position_embeddings", c.seq_len},
          {"rms_norm_eps", normEpsilon(c.norm_eps, torch::kFloat32)},
          {"rope_theta", c.rope_base},
          {"attention_bias", false},
          {"mlp_bias", false},
          {"tie_word_embeddings", c.tie_embeddings},
          {"torch_dtype", "float32"}};
}

// --- description ----------------------------------------------------------------------------

namespace {

size_t stackSize(const torch::nn::ModuleList& stack) {
  return stack ? stack->size() : 0;
}

// The executed blocks by parameter prefix, with "BO" where the boundary operator runs.
nlohmann::json executionOrder(GPT& model) {
  const ModelConfig& c = model->config;
  nlohmann::json order = nlohmann::json::array();
  if (!model->isPcc()) {
    const int64_t n = static_cast<int64_t>(model->blocks->size());
    for (int64_t l = 0; l < n; ++l) {
      if (c.boundary_every > 0 && l > 0 && l % c.boundary_every == 0 && l > c.boundary_source)
        order.push_back("BO");
      order.push_back("blocks." + std::to_string(l));
    }
    return order;
  }
  for (size_t i = 0; i < stackSize(model->prelude); ++i)
    order.push_back("prelude." + std::to_string(i));
  const size_t distinct = model->cores->size();
  const size_t core_blocks = model->cores->ptr(0)->as<torch::nn::ModuleListImpl>()->size();
  for (int64_t k = 0; k < model->passes(); ++k) {
    if (k > 0) order.push_back("BO");
    for (size_t i = 0; i < core_blocks; ++i)
      order.push_back("cores." + std::to_string(static_cast<size_t>(k) % distinct) + "." +
                      std::to_string(i));
  }
  order.push_back("BO");
  for (size_t i = 0; i < stackSize(model->coda); ++i) order.push_back("coda." + std::to_string(i));
  return order;
}

}  // namespace

nlohmann::json exportDescription(const RunConfig& config, GPT& model, const ExportSource& source,
                                 const safetensors::NamedTensors& tensors,
                                 const std::string& names) {
  const ModelConfig& c = model->config;
  nlohmann::json layout = {{"arch", enumName(c.arch)}, {"grown", model->grown()}};
  if (model->isPcc()) {
    layout["prelude_blocks"] = stackSize(model->prelude);
    layout["distinct_cores"] = model->cores->size();
    layout["core_blocks"] = model->cores->ptr(0)->as<torch::nn::ModuleListImpl>()->size();
    layout["core_passes"] = model->passes();
    layout["tied"] = model->isTied();
    layout["coda_blocks"] = stackSize(model->coda);
    layout["boundary_operator"] = "BO(h, e) = RMSNorm(h) + alpha e, e = the prelude output";
  } else {
    layout["blocks"] = model->blocks->size();
    if (c.boundary_every > 0)
      layout["boundary_operator"] =
          "BO(h, h_source) = RMSNorm(h) + alpha h_source, h_source = "
          "the output of block boundary_source (0 = embedding)";
  }
  layout["execution_order"] = executionOrder(model);
  nlohmann::json tokenizer;
  if (config.data.kind == DataKind::shards)
    tokenizer = {{"kind", "gpt2-bpe"},
                 {"vocab_size", c.vocab_size},
                 {"end_of_text", 50256},
                 {"note", "llm.c shards: GPT-2 BPE token ids (tiktoken \"gpt2\")"}};
  else
    tokenizer = {{"kind", "bytes"},
                 {"vocab_size", c.vocab_size},
                 {"note", "token id = byte value 0..255 of the UTF-8 text"}};
  nlohmann::json shapes = nlohmann::json::object();
  for (const auto& [name, tensor] : tensors)
    shapes[name] = {{"dtype", safetensors::dtypeName(tensor.scalar_type())},
                    {"shape", tensor.sizes().vec()}};
  nlohmann::json out = {{"format", "deepladder-weights"},
                        {"version", 1},
                        {"names", names},
                        {"source",
                         {{"run", source.run_id},
                          {"name", config.name},
                          {"config_hash", source.config_hash},
                          {"step", source.step},
                          {"tokens", source.tokens}}},
                        {"model", toJson(config)["model"]},
                        {"norm_eps_value", normEpsilon(c.norm_eps, torch::kFloat32)},
                        {"layout", layout},
                        {"tokenizer", tokenizer},
                        {"tensors", shapes}};
  return out;
}

}  // namespace deepladder::trainers
