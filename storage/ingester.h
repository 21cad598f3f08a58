// The ingester: applies one run's worker protocol messages (core/protocol.h) to the database.
// It buffers rows and writes them in one transaction every `flush_rows` rows or `flush_seconds`,
// and always at hello, checkpoint, done and error, and when destroyed. Every write is an upsert
// on its primary key, so re-ingesting a whole worker log after a crash duplicates nothing.
// The run's final status after an `error` (failed, interrupted, ...) is the caller's to set when
// the worker process exits; a `done` sets finished or diverged.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/protocol.h"
#include "storage/database.h"

namespace deepladder::storage {

// kTraining: the worker trains the run, and its messages also move the run's status, progress and
// totals. kEvaluation: the worker evaluates a finished run (`deepladder eval`): its metrics are
// stored as rows and nothing else about the run changes.
enum class IngestMode { kTraining, kEvaluation };

class Ingester {
 public:
  Ingester(Database& db, int64_t run_id, size_t flush_rows = 4096, double flush_seconds = 0.5,
           IngestMode mode = IngestMode::kTraining);
  ~Ingester();  // flushes (errors are swallowed there: call flush() to see them)
  Ingester(const Ingester&) = delete;
  Ingester& operator=(const Ingester&) = delete;

  // hello      -> status running, device, params, flops_per_token, started, heartbeat; a resumed
  //               worker (resumed_from >= 0) also adds the event "resumed" at that step
  // metric     -> one metrics row per value key; run step/tokens/flops/heartbeat
  // eval       -> evals;  lens -> lens (one row per block);  event -> events
  // checkpoint -> checkpoints;  done -> status finished|diverged, final_loss (NaN -> NULL),
  //               totals, finished time, message into runs.error;  error -> runs.error
  void apply(const protocol::Message& message);
  // Decodes and applies one line of worker output; false (nothing applied) for a line that is not
  // a protocol message, e.g. stray prints.
  bool applyLine(const std::string& line);
  // Writes what is buffered now, in one transaction.
  void flush();
  // Flushes when flush_seconds have passed since the last flush. apply() checks this itself;
  // a caller that waits for output (poll/select) calls it when the wait times out.
  void flushIfDue();

  bool sawDone() const { return done_.has_value(); }
  std::optional<protocol::Done> done() const { return done_; }
  std::optional<protocol::Checkpoint> lastCheckpoint() const { return last_checkpoint_; }
  std::optional<protocol::Hello> hello() const { return hello_; }
  std::optional<std::string> lastError() const { return last_error_; }

 private:
  using Clock = std::chrono::steady_clock;
  size_t pendingRows() const;
  void maybeFlush();

  Database& db_;
  int64_t run_id_;
  IngestMode mode_;
  size_t flush_rows_;
  double flush_seconds_;
  Clock::time_point last_flush_;

  // Buffered writes.
  std::vector<MetricRow> metrics_;
  std::vector<LensRow> lens_;
  std::vector<EvalRow> evals_;
  std::vector<EventRow> events_;
  std::vector<CheckpointRow> checkpoints_;
  struct Progress {
    int64_t step, tokens;
    double flops, heartbeat;
  };
  std::optional<Progress> progress_;
  struct Started {
    std::string device;
    int64_t params;
    double flops_per_token, now;
  };
  std::optional<Started> started_;
  std::optional<std::string> error_text_;
  std::optional<protocol::Done> pending_done_;
  double done_time_ = 0;

  // What the run has said so far.
  std::optional<protocol::Hello> hello_;
  std::optional<protocol::Done> done_;
  std::optional<protocol::Checkpoint> last_checkpoint_;
  std::optional<std::string> last_error_;
};

}  // namespace deepladder::storage
