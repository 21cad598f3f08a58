// A TensorBoard log directory read as runs to import: every directory at or under the given one
// that holds events.out.tfevents.* files is one run (TensorBoard's own rule), named by its path
// below the log directory ('/' and any character a run name cannot hold become '_'; the log
// directory itself, when it holds event files, is named after its last component). A run's files
// are read in name order (their names start with the time they were opened), every record checked
// (tfrecord.h) and decoded (tb_event.h): scalars by tag mapped to metric keys
// (imported_run.h), a step logged twice keeps its last value. Its options: the hparams plugin's
// SessionStartInfo in its events, then config.json, hparams.json, config.toml, hparams.toml in its
// directory (each over the one before), then --set.
#pragma once

#include <string>
#include <vector>

#include "core/import/imported_run.h"

namespace deepladder::imports {

// Throws UserError for a path that is not a directory, a directory without event files, a damaged
// event file (naming the file and the byte offset of the bad record) and an unreadable options
// file. Nothing is returned unless every file read cleanly.
std::vector<ImportedRun> readTensorBoardLogdir(const std::string& dir,
                                               const ImportSettings& settings);

// The TOML file's tables as a JSON object (dates and times as their TOML text).
nlohmann::json tomlFileAsJson(const std::string& path);

// The file name's run-name form: characters outside [A-Za-z0-9._+-] become '_'.
std::string runNameOfPath(const std::string& relative);

// Sorts each curve by step and keeps, of the points at one step, the last one read.
void keepLastPointPerStep(ImportedRun& run);

}  // namespace deepladder::imports
