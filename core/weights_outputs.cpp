// The files export-weights writes, checked before either is touched (see weights_outputs.h).
#include "core/weights_outputs.h"

#include <filesystem>

#include "core/errors.h"
#include "core/safe_text.h"

namespace deepladder {

namespace fs = std::filesystem;

std::string weightsDescriptionPath(const std::string& weights_path) {
  return fs::path(weights_path).replace_extension(".json").string();
}

void requireWeightsOutputs(const std::string& weights_path, const ProtectedPaths& inputs) {
  requireOutputPath(weights_path, "the --out file", inputs);
  const std::string description = weightsDescriptionPath(weights_path);
  std::error_code ec;
  const fs::path weights_abs = fs::weakly_canonical(fs::absolute(weights_path), ec);
  const fs::path description_abs = fs::weakly_canonical(fs::absolute(description), ec);
  if (weights_abs == description_abs)
    throw UserError(shownText(weights_path, 200) +
                    ": --out ends in .json, the name of the JSON description written beside the "
                    "weights (--out with its extension replaced by .json), so the description "
                    "would overwrite the weights. Name the weights file .safetensors. Nothing "
                    "was written");
  const std::string problem = outputPathProblem(description, inputs);
  if (!problem.empty())
    throw UserError(shownText(description, 200) + ": the JSON description of --out " +
                    shownText(weights_path, 200) +
                    " (written beside it, .json for its extension) " + problem +
                    ". Nothing was written");
}

}  // namespace deepladder
