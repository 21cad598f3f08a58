// Weights export from a run's checkpoint (see weights_export.h).
#include "trainers/weights_export.h"

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/safe_file.h"
#include "core/weights_outputs.h"
#include "trainers/checkpoint.h"
#include "trainers/gpt.h"
#include "trainers/model_weights.h"
#include "trainers/safetensors.h"

namespace deepladder::trainers {

WeightsExportResult exportWeights(const RunConfig& config, const WeightsExportOptions& options) {
  if (config.task != Task::lm)
    throw UserError("export-weights: run " + options.run_id +
                    " is a squaring run; only language models are exported");
  if (options.names != "deepladder" && options.names != "hf-llama")
    throw UserError("--names: unknown layout \"" + options.names +
                    "\". Use deepladder or hf-llama");
  if (options.names == "hf-llama")
    if (const auto problem = hfLlamaProblem(config.model))
      throw UserError("--names hf-llama: this model is not a Llama: " + *problem +
                      ". Export it with deepladder's names (the default)");
  // Checked again here (the CLI checked with the database too): never a checkpoint of this run.
  ProtectedPaths inputs;
  inputs.addDirectory(options.workdir, "the run's directory");
  requireWeightsOutputs(options.out, inputs);
  torch::NoGradGuard no_grad;
  GPT model(config.model);
  std::vector<std::string> skipped;
  const auto state =
      loadCheckpointWeights(options.workdir, configHash(config), model, options.step, &skipped);
  if (!state) {
    std::string steps;
    for (const auto& record : listCheckpoints(options.workdir))
      steps += (steps.empty() ? "" : ", ") + std::to_string(record.step);
    std::string why;
    for (const auto& s : skipped) why += "\n  " + s;
    throw UserError("export-weights: run " + options.run_id + " has no usable checkpoint" +
                    (options.step ? " at step " + std::to_string(*options.step) : "") + " in " +
                    options.workdir +
                    " (checkpoints at steps: " + (steps.empty() ? "none" : steps) + ")" + why +
                    (options.step ? ". Pick one of those steps, or leave out --step" : ""));
  }
  const safetensors::NamedTensors tensors =
      options.names == "hf-llama" ? toHfLlama(model) : modelWeights(model);
  ExportSource source{options.run_id, configHash(config), state->step, state->tokens, state->grown};
  nlohmann::json description = exportDescription(config, model, source, tensors, options.names);
  if (options.names == "hf-llama") {
    nlohmann::json hf = hfLlamaConfig(config.model, model);
    hf["deepladder"] = std::move(description);
    description = std::move(hf);
  }
  std::error_code ignored;
  const auto parent = std::filesystem::path(options.out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  WeightsExportResult result;
  result.weights_path = options.out;
  result.description_path = weightsDescriptionPath(options.out);
  // Both written whole before either is renamed into place.
  AtomicOutputFile weights(result.weights_path, "the weights file", inputs);
  AtomicOutputFile description_file(result.description_path, "the weights' JSON description",
                                    inputs);
  safetensors::write(weights, tensors,
                     {{"format", "pt"}, {"producer", "deepladder"}, {"names", options.names}});
  description_file.write(description.dump(2) + "\n");
  weights.commit();
  description_file.commit();
  result.step = state->step;
  result.tensors = static_cast<int64_t>(tensors.size());
  result.bytes = static_cast<int64_t>(std::filesystem::file_size(options.out));
  return result;
}

}  // namespace deepladder::trainers
