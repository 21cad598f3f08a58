// The data of runs, checked before they are queued (by `deepladder train` and `run`): every
// distinct data section is opened once (train and validation splits: files present, shard
// headers sound, one window of seq_len + 1 tokens), and for llm.c shards every token id is
// checked against the run's vocabulary (a token id >= vocab_size would fail inside the model,
// after the run had been queued and retried). A run's train.init_from weights file must be there
// and a regular file too (its contents are checked by the worker, before training: a missing file
// used to leave a failed run row behind). The squaring task generates its data: nothing to
// check. Torch-free.
#pragma once

#include <string>
#include <vector>

#include "core/run_config.h"

namespace deepladder::data {

struct RunDataUse {
  const RunConfig* config;
  std::string label;  // for messages: "run.toml", "ladder.toml (vanilla-d2-s1)"
};

// Throws UserError naming the file, the key and the run for the first problem.
void checkRunData(const std::vector<RunDataUse>& runs);

// Why the run's train.init_from file cannot be read, as "PATH: train.init_from: the weights file
// does not exist. ..." ("" when the run starts from its seed or the file is there).
std::string initFromProblem(const RunConfig& config);

}  // namespace deepladder::data
