// The run skeleton both training loops share (the LM trainer and the serial task's): what happens
// around the steps of one run, so the two loops differ only in their data, model and step.
//   - start-up: the intra-op thread count (train.threads) and the seed (train.seed);
//   - resume: the newest valid checkpoint in the work directory with the config's hash
//     (trainers/checkpoint.h), when TrainerOptions::resume asks for it;
//   - hello: run id, config hash and the step resumed from, then an event per checkpoint passed
//     over and "fresh_start" when none was usable;
//   - the counters (TrainingState) every metric line carries, the throughput of each log interval,
//     and the cadence of log, eval and checkpoint steps;
//   - checkpoints: write, prune to train.keep_checkpoints, report;
//   - the end: Done "finished" or "diverged" with the totals, or a stop at
//     TrainerOptions::max_steps without Done.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/protocol.h"
#include "core/run_config.h"
#include "trainers/checkpoint.h"
#include "trainers/run_optimizer.h"
#include "trainers/trainer.h"

namespace deepladder::trainers {

class RunSession {
 public:
  // Sets the thread count and the seed, and creates the work directory.
  RunSession(const RunConfig& config, const TrainerOptions& options, MessageSink emit);

  const std::string& configHash() const { return hash_; }
  TrainingState& state() { return state_; }
  const TrainingState& state() const { return state_; }
  const MessageSink& emit() const { return emit_; }
  double wallSeconds() const;

  // Loads the newest valid checkpoint through `load` (called with the work directory, the config
  // hash and the list of checkpoints passed over) when a resume was asked for; the state is then
  // the checkpoint's. Returns true when the run resumed.
  using Loader = std::function<std::optional<TrainingState>(
      const std::string& workdir, const std::string& hash, std::vector<std::string>* skipped)>;
  bool resume(const Loader& load);
  // The step resumed from, -1 for a fresh start.
  int64_t resumedFrom() const { return resumed_from_; }

  // Emits `hello` (run id, config hash and resumed_from filled in here) and what the resume
  // passed over.
  void announce(protocol::Hello hello);

  // A metric line at the current counters.
  void metric(std::vector<std::pair<std::string, double>> values) const;

  // True when TrainerOptions::max_steps says to stop before the next step.
  bool stopRequested() const;
  // Counts one finished step of `tokens` tokens; the FLOPs are the caller's (state().flops).
  void countStep(int64_t tokens);
  // Tokens per second of the steps counted since the previous call (the first interval starts
  // at announce()), then starts the next interval: the `tokens_per_s` of every log line.
  double takeTokensPerSecond();
  // True at the last step, and at every `every`-th step (every > 0).
  bool due(int64_t every) const;
  bool lastStep() const { return state_.step == steps_; }
  bool done() const { return state_.step >= steps_; }

  // Writes a checkpoint of `model` and `optimizer` at the current state, prunes old ones and
  // reports it.
  void checkpoint(torch::nn::Module& model, const RunOptimizer& optimizer);

  // The run's end: Done with the totals. `advice` follows the divergence message.
  TrainOutcome finished(double final_loss) const;
  TrainOutcome diverged(double loss, const std::string& advice) const;
  // Stopped at max_steps: no Done.
  TrainOutcome stopped(double last_val_loss) const;

 private:
  MessageSink emit_;
  TrainerOptions options_;
  int64_t steps_;
  int64_t keep_checkpoints_;
  std::string hash_;
  TrainingState state_;
  int64_t resumed_from_ = -1;
  std::vector<std::string> skipped_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point interval_start_;
  int64_t interval_start_tokens_ = 0;  // state_.tokens when the interval began
};

}  // namespace deepladder::trainers
