// `deepladder export-weights`: the worker side. Builds a run's model, loads its newest (or a given)
// checkpoint's parameters and writes them as safetensors (trainers/safetensors.h) under
// deepladder's names or the Hugging Face Llama layout (trainers/model_weights.h), with the JSON
// description beside it: <out> with its extension replaced by .json ("model.safetensors" ->
// "model.json", core/weights_outputs.h, which also checks both paths before anything is written:
// never inside the run's own directory, nor the description over the weights). Both are written
// to temporaries and renamed into place once both are whole. Under hf-llama that JSON is a
// LlamaConfig (copy it to config.json for transformers) with deepladder's description under the key
// "deepladder".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/run_config.h"

namespace deepladder::trainers {

struct WeightsExportOptions {
  std::string run_id;
  std::string workdir;               // the run's directory, holding its checkpoints
  std::string out;                   // the .safetensors file to write
  std::optional<int64_t> step;       // nullopt: the newest checkpoint that verifies
  std::string names = "deepladder";  // or "hf-llama"
};

struct WeightsExportResult {
  std::string weights_path, description_path;
  int64_t step = 0;
  int64_t tensors = 0;
  int64_t bytes = 0;  // of the safetensors file
};

// Throws UserError for a squaring run, an unknown --names, an output path refused by
// requireWeightsOutputs, no usable checkpoint (saying which steps exist and why each was passed
// over) or a model hf-llama cannot express.
WeightsExportResult exportWeights(const RunConfig& config, const WeightsExportOptions& options);

}  // namespace deepladder::trainers
