// The run skeleton both training loops share (see run_session.h).
#include "trainers/run_session.h"

#include <cmath>
#include <filesystem>
#include <utility>

#include "core/run_status.h"

namespace deepladder::trainers {

namespace {

// Emits Done ("finished" or "diverged" for `status`) with the run's totals and `message`, and
// returns the matching outcome.
TrainOutcome endRun(const MessageSink& emit, TrainStatus status, double final_loss,
                    const TrainingState& totals, double wall_s, const std::string& message = "") {
  protocol::Done done;
  done.status = status == TrainStatus::kDiverged ? RunStatus::kDiverged : RunStatus::kFinished;
  done.final_loss = final_loss;
  done.steps = totals.step;
  done.tokens = totals.tokens;
  done.flops = totals.flops;
  done.wall_s = wall_s;
  done.message = message;
  emit(done);
  TrainOutcome outcome;
  outcome.status = status;
  outcome.steps = totals.step;
  outcome.final_loss = final_loss;
  return outcome;
}

// "training loss became NaN at step N" (step counted from 1).
std::string divergenceMessage(double loss, int64_t step) {
  return "training loss became " + std::string(std::isnan(loss) ? "NaN" : "Inf") + " at step " +
         std::to_string(step);
}

}  // namespace

RunSession::RunSession(const RunConfig& config, const TrainerOptions& options, MessageSink emit)
    : emit_(std::move(emit)),
      options_(options),
      steps_(config.train.steps),
      keep_checkpoints_(config.train.keep_checkpoints),
      hash_(deepladder::configHash(config)),
      start_(std::chrono::steady_clock::now()) {
  torch::set_num_threads(resolveThreadCount(config.train.threads));
  torch::manual_seed(static_cast<uint64_t>(config.train.seed));
  state_.config_hash = hash_;
  std::filesystem::create_directories(options_.workdir);
}

double RunSession::wallSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool RunSession::resume(const Loader& load) {
  if (!options_.resume) return false;
  auto loaded = load(options_.workdir, hash_, &skipped_);
  if (!loaded) return false;
  state_ = *loaded;
  resumed_from_ = state_.step;
  return true;
}

void RunSession::announce(protocol::Hello hello) {
  hello.run_id = options_.run_id;
  hello.config_hash = hash_;
  hello.resumed_from = resumed_from_;
  emit_(hello);
  interval_start_ = std::chrono::steady_clock::now();
  interval_start_tokens_ = state_.tokens;
  for (const auto& why : skipped_)
    emit_(protocol::Event{state_.step, "checkpoint_skipped", why + "; using an older checkpoint"});
  if (options_.resume && resumed_from_ < 0 && !skipped_.empty())
    emit_(protocol::Event{0, "fresh_start", "no usable checkpoint; training from step 0"});
}

void RunSession::metric(std::vector<std::pair<std::string, double>> values) const {
  protocol::Metric m;
  m.step = state_.step;
  m.tokens = state_.tokens;
  m.flops = state_.flops;
  m.wall_s = wallSeconds();
  m.values = std::move(values);
  emit_(m);
}

bool RunSession::stopRequested() const {
  return options_.max_steps >= 0 && state_.step >= options_.max_steps;
}

void RunSession::countStep(int64_t tokens) {
  ++state_.step;
  state_.tokens += tokens;
}

double RunSession::takeTokensPerSecond() {
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - interval_start_).count();
  const auto tokens = static_cast<double>(state_.tokens - interval_start_tokens_);
  interval_start_ = now;
  interval_start_tokens_ = state_.tokens;
  return seconds > 0 ? tokens / seconds : 0.0;
}

bool RunSession::due(int64_t every) const {
  return lastStep() || (every > 0 && state_.step % every == 0);
}

void RunSession::checkpoint(torch::nn::Module& model, const RunOptimizer& optimizer) {
  const CheckpointRecord record = saveCheckpoint(options_.workdir, model, optimizer, state_);
  pruneCheckpoints(options_.workdir, keep_checkpoints_);
  emit_(protocol::Checkpoint{record.step, record.path, record.sha256});
}

TrainOutcome RunSession::finished(double final_loss) const {
  return endRun(emit_, TrainStatus::kFinished, final_loss, state_, wallSeconds());
}

TrainOutcome RunSession::diverged(double loss, const std::string& advice) const {
  return endRun(emit_, TrainStatus::kDiverged, loss, state_, wallSeconds(),
                divergenceMessage(loss, state_.step + 1) + advice);
}

TrainOutcome RunSession::stopped(double last_val_loss) const {
  return TrainOutcome{TrainStatus::kStopped, state_.step, last_val_loss};
}

}  // namespace deepladder::trainers
