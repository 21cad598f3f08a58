// A GPT's weights in and out of safetensors files (trainers/safetensors.h): the tensors under
// deepladder's own parameter names (train.init_from reads them, export writes them), the JSON
// description written beside an export (every model option, the block layout, the tokenizer), and
// the renaming of a plain model to the Hugging Face Llama layout.
//
// deepladder's names are the GPT's named_parameters (trainers/gpt.h), float32:
//   token_embedding.weight            (V_rows, C)  V_rows = vocab_padded or vocab_size
//   <block>.attn_norm.gain            (C)          absent with norm_gain = false
//   <block>.attn.qkv.weight           (3C, C)      rows [q; k; v], heads of C / n_head
//   <block>.attn.q_norm.gain, k_norm.gain (D)      qk_norm with norm_gain only
//   <block>.attn.proj.weight          (C, C)
//   <block>.mlp_norm.gain             (C)
//   <block>.mlp.up.weight             (H, C) gelu; (2H, C) swiglu, rows [gate; up]
//   <block>.mlp.down.weight           (C, H)
//   embed_norm.gain, final_norm.gain  (C)          embed_norm / norm_gain
//   unembedding.weight                (V_rows, C)  absent with tie_embeddings
// where <block> is blocks.i (vanilla), or prelude.i, cores.k.i, coda.i (pcc).
//
// --names hf-llama (toHfLlama): model.embed_tokens, model.layers.i.{input_layernorm,
// self_attn.{q,k,v,o}_proj, post_attention_layernorm, mlp.{gate,up,down}_proj}, model.norm,
// lm_head. Only a model Llama computes exactly is renamed (hfLlamaProblem says why not).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/run_config.h"
#include "trainers/gpt.h"
#include "trainers/safetensors.h"

namespace deepladder::trainers {

// The model's parameters under deepladder's names, in the model's order.
safetensors::NamedTensors modelWeights(GPT& model);

// train.init_from: copies the tensors of the safetensors file `path` into `model` (its
// pre-growth structure). Every parameter must be in the file with its shape; the file may hold
// nothing else, and every value must be finite. Throws UserError naming the file and the first
// missing, misshapen, non-floating, non-finite (NaN or Inf) or unknown tensor, before training;
// the model is untouched then. float32 tensors are copied bit for bit; other float dtypes
// are converted.
void loadInitialWeights(GPT& model, const std::string& path);

// Why Llama cannot express this model exactly (the first reason), or nullopt when it can.
std::optional<std::string> hfLlamaProblem(const ModelConfig& config);
// The model's tensors renamed and split to the Hugging Face Llama layout; throws UserError with
// hfLlamaProblem's reason when there is one.
safetensors::NamedTensors toHfLlama(GPT& model);
// The LlamaConfig (config.json) of that export.
nlohmann::json hfLlamaConfig(const ModelConfig& config, GPT& model);

// Where an export came from.
struct ExportSource {
  std::string run_id;
  std::string config_hash;
  int64_t step = 0;
  int64_t tokens = 0;
  bool grown = false;
};

// The JSON written beside an export: format, source, every model option, the block layout (the
// stacks, their block counts, and the executed order of block names with the boundary operator
// between them), the tokenizer (bytes, or GPT-2 BPE for llm.c shards) and every tensor's shape.
nlohmann::json exportDescription(const RunConfig& config, GPT& model, const ExportSource& source,
                                 const safetensors::NamedTensors& tensors,
                                 const std::string& names);

}  // namespace deepladder::trainers
