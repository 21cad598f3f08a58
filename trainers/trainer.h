// The training loop of one run: opens the data, builds the GPT and its optimizer (AdamW, or the
// recipe's Muon + AdamW groups: run_optimizer.h) from the config, resumes from the newest valid
// checkpoint when asked, trains, validates, checkpoints, and reports every
// step of it as worker-protocol messages (hello, metric, checkpoint, event, done) to a sink.
// A NaN/Inf training loss ends the run with Done{status="diverged"}; it is an outcome, not an
// exception. Bad input (data files, vocab) throws UserError; anything else is a bug or I/O failure.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/protocol.h"
#include "core/run_config.h"

namespace deepladder::trainers {

struct TrainerOptions {
  std::string run_id = "run";
  std::string workdir = ".";  // checkpoints go here (created when missing)
  bool resume = false;        // continue from the newest valid checkpoint in workdir, if any
  int64_t max_steps = -1;     // >= 0: stop after this step without Done (tests, interruption)
};

enum class TrainStatus { kFinished, kDiverged, kStopped };

struct TrainOutcome {
  TrainStatus status = TrainStatus::kFinished;
  int64_t steps = 0;      // updates done, counting those before a resume
  double final_loss = 0;  // last validation loss (finished) or the offending loss (diverged)
};

using MessageSink = std::function<void(const protocol::Message&)>;

TrainOutcome runTraining(const RunConfig& config, const TrainerOptions& options,
                         const MessageSink& emit);

// Intra-op threads the trainer uses for `requested` (0 = all cores).
int resolveThreadCount(int64_t requested);

}  // namespace deepladder::trainers
