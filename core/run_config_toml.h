// TOML readers for the sections of a run config, shared by run files and ladder files (a ladder's
// [model]/[train] defaults and each arm's overrides go through the same validation). Each reader
// starts from the values already in the struct, so applying a table on top is an override.
#pragma once

#include "core/run_config.h"
#include "core/toml_reader.h"

namespace deepladder {

void readModel(TomlReader reader, ModelConfig& model);
void readData(TomlReader reader, DataConfig& data);
void readTrain(TomlReader reader, TrainConfig& train);
void readSquaring(TomlReader reader, SquaringConfig& squaring);

}  // namespace deepladder
