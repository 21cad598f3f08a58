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

// How a training loop (the LM one here, the squaring one) ends a run: emits Done ("finished" or
// "diverged" for `status`) with the totals and `message`, and returns the matching outcome.
struct RunTotals {
  int64_t steps = 0;
  int64_t tokens = 0;
  double flops = 0;
  double wall_s = 0;
};
TrainOutcome endRun(const MessageSink& emit, TrainStatus status, double final_loss,
                    const RunTotals& totals, const std::string& message = "");
// How a training loop starts a run's protocol: `hello`, then an event per checkpoint the resume
// passed over (`skipped`), and "fresh_start" when a resume was asked for and none was usable.
void announceStart(const MessageSink& emit, const protocol::Hello& hello,
                   const std::vector<std::string>& skipped, int64_t step, bool resume_asked);
// "training loss became NaN at step N" (step counted from 1): how a diverged run's message starts.
std::string divergenceMessage(double loss, int64_t step);

}  // namespace deepladder::trainers
