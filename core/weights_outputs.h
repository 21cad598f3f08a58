// The two files `deepladder export-weights` writes, and the checks on them before either is
// touched: the safetensors file (--out) and its JSON description beside it, named after --out
// with its extension replaced by .json ("model.safetensors" -> "model.json"). Both paths pass the
// checked output writer's rules (core/safe_file.h: not an input, not inside a work directory, a
// regular file or a new one), and they must differ: `--out w.json` would have the description
// overwrite the weights. Torch-free, so the CLI checks before it starts the worker and the worker
// checks again before it writes.
#pragma once

#include <string>

#include "core/safe_file.h"

namespace deepladder {

// The path of the JSON description beside `weights_path`.
std::string weightsDescriptionPath(const std::string& weights_path);

// Throws UserError naming --out (and the description path where that is the one refused) when
// either file may not be written; nothing is created.
void requireWeightsOutputs(const std::string& weights_path, const ProtectedPaths& inputs);

}  // namespace deepladder
