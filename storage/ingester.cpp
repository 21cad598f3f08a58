// Ingester (see ingester.h): buffers one run's protocol messages and writes them in batches.
#include "storage/ingester.h"

#include <chrono>
#include <cmath>
#include <type_traits>
#include <variant>

#include "core/clock_seconds.h"
#include "core/run_status.h"

namespace deepladder::storage {

Ingester::Ingester(Database& db, int64_t run_id, size_t flush_rows, double flush_seconds,
                   IngestMode mode)
    : db_(db),
      run_id_(run_id),
      mode_(mode),
      flush_rows_(flush_rows == 0 ? 1 : flush_rows),
      flush_seconds_(flush_seconds),
      last_flush_(Clock::now()) {
  metrics_.reserve(flush_rows_);
}

Ingester::~Ingester() {
  try {
    flush();
  } catch (...) {
    // A destructor must not throw; callers that care call flush() themselves.
  }
}

size_t Ingester::pendingRows() const {
  return metrics_.size() + lens_.size() + evals_.size() + events_.size() + checkpoints_.size();
}

void Ingester::apply(const protocol::Message& message) {
  bool flush_now = false;
  const bool training = mode_ == IngestMode::kTraining;
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, protocol::Hello>) {
          hello_ = m;
          if (!training) return;
          started_ = Started{m.device, m.params, m.flops_per_token, unixSeconds()};
          if (m.resumed_from >= 0) {
            events_.push_back(EventRow{run_id_, m.resumed_from, "resumed",
                                       "resumed from the checkpoint at step " +
                                           std::to_string(m.resumed_from) + " on " + m.device});
          }
          flush_now = true;
        } else if constexpr (std::is_same_v<T, protocol::Metric>) {
          for (const auto& [key, value] : m.values) {
            metrics_.push_back(MetricRow{run_id_, key, m.step, m.tokens, m.flops, value, m.wall_s});
          }
          if (training) progress_ = Progress{m.step, m.tokens, m.flops, unixSeconds()};
        } else if constexpr (std::is_same_v<T, protocol::Eval>) {
          evals_.push_back(EvalRow{run_id_, m.step, m.task, m.n_bits, m.T, m.correct, m.total});
        } else if constexpr (std::is_same_v<T, protocol::Lens>) {
          for (size_t block = 0; block < m.kl.size(); ++block) {
            lens_.push_back(LensRow{run_id_, m.step, static_cast<int64_t>(block), m.kl[block]});
          }
        } else if constexpr (std::is_same_v<T, protocol::Checkpoint>) {
          if (!training) return;
          checkpoints_.push_back(CheckpointRow{run_id_, m.step, m.path, m.sha256});
          last_checkpoint_ = m;
          flush_now = true;
        } else if constexpr (std::is_same_v<T, protocol::Event>) {
          events_.push_back(EventRow{run_id_, m.step, m.name, m.detail});
        } else if constexpr (std::is_same_v<T, protocol::Done>) {
          done_ = m;
          flush_now = true;
          if (!training) return;
          pending_done_ = m;
          done_time_ = unixSeconds();
        } else if constexpr (std::is_same_v<T, protocol::Error>) {
          last_error_ = m.message;
          flush_now = true;
          if (training) error_text_ = m.message;
        }
      },
      message);
  if (flush_now) {
    flush();
  } else {
    maybeFlush();
  }
}

bool Ingester::applyLine(const std::string& line) {
  auto message = protocol::decode(line);
  if (!message) return false;
  apply(*message);
  return true;
}

void Ingester::maybeFlush() {
  if (pendingRows() >= flush_rows_) {
    flush();
  } else {
    flushIfDue();
  }
}

void Ingester::flushIfDue() {
  const double since = std::chrono::duration<double>(Clock::now() - last_flush_).count();
  if (since >= flush_seconds_) flush();
}

void Ingester::flush() {
  last_flush_ = Clock::now();
  const bool nothing =
      pendingRows() == 0 && !progress_ && !started_ && !error_text_ && !pending_done_;
  if (nothing) return;
  Transaction transaction(db_);
  // Order matters on replay within one batch: started before progress before done.
  if (started_) {
    db_.markRunStarted(run_id_, started_->device, started_->params, started_->flops_per_token,
                       started_->now);
  }
  db_.writeMetrics(metrics_);
  db_.writeLens(lens_);
  db_.writeEvals(evals_);
  db_.writeEvents(events_);
  for (const CheckpointRow& row : checkpoints_) db_.addCheckpoint(row);
  if (progress_) {
    db_.updateRunProgress(run_id_, progress_->step, progress_->tokens, progress_->flops,
                          progress_->heartbeat);
  }
  if (error_text_) db_.setRunError(run_id_, *error_text_);
  if (pending_done_) {
    const protocol::Done& d = *pending_done_;
    const std::optional<double> final_loss =
        std::isnan(d.final_loss) ? std::nullopt : std::optional<double>(d.final_loss);
    db_.markRunDone(run_id_,
                    d.status == RunStatus::kDiverged ? RunStatus::kDiverged : RunStatus::kFinished,
                    final_loss, d.steps, d.tokens, d.flops, done_time_, d.message);
  }
  transaction.commit();
  metrics_.clear();
  lens_.clear();
  evals_.clear();
  events_.clear();
  checkpoints_.clear();
  progress_.reset();
  started_.reset();
  error_text_.reset();
  pending_done_.reset();
}

}  // namespace deepladder::storage
