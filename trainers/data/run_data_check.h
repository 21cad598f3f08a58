// The data of runs, checked before they are queued (by `deepladder train` and `run`): every
// distinct data section is opened once (train and validation splits: files present, shard
// headers sound, one window of seq_len + 1 tokens), and for llm.c shards every token id is
// checked against the run's vocabulary (a token id >= vocab_size would fail inside the model,
// after the run had been queued and retried). The squaring task generates its data: nothing to
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

}  // namespace deepladder::data
