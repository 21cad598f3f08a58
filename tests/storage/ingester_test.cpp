// The ingester on a synthetic worker log (hello, metrics, lens, eval, event, checkpoint, done):
// the run row, curves in step order, batching, and idempotent replay after a crash.
#include "storage/ingester.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>
#include <thread>

#include "storage/database.h"
#include "storage/worker_log_replay.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

using testing::TempDir;

// A worker log as the trainer writes it: 100 steps, val every 10, checkpoint at 50 and 100.
std::vector<std::string> syntheticLog(bool with_done = true) {
  std::vector<std::string> lines;
  auto add = [&lines](const protocol::Message& m) { lines.push_back(protocol::encode(m)); };
  add(protocol::Hello{"7", "cfg", "cpu", -1, 12345, 6.0e5});
  for (int64_t step = 1; step <= 100; ++step) {
    protocol::Metric m;
    m.step = step;
    m.tokens = step * 256;
    m.flops = step * 256 * 6.0e5;
    m.wall_s = 0.01 * step;
    m.values = {{"train/loss", 5.0 - 0.01 * step}, {"lr", 1e-3}};
    if (step % 10 == 0) m.values.push_back({"val/loss", 5.1 - 0.01 * step});
    add(m);
    if (step % 25 == 0) add(protocol::Lens{step, {3.0, 2.0, 1.0}});
    if (step == 50) {
      add(protocol::Eval{step, "squaring", 16, 4, 9, 10});
      add(protocol::Event{step, "growth", "2->4"});
      add(protocol::Checkpoint{step, "/w/ckpt-50.pt", "sha50"});
    }
  }
  add(protocol::Checkpoint{100, "/w/ckpt-100.pt", "sha100"});
  if (with_done) add(protocol::Done{RunStatus::kFinished, 4.0, 100, 25600, 1.536e10, 1.0, ""});
  return lines;
}

struct Counts {
  int64_t metrics, lens, evals, events, checkpoints;
  bool operator==(const Counts& o) const {
    return metrics == o.metrics && lens == o.lens && evals == o.evals && events == o.events &&
           checkpoints == o.checkpoints;
  }
};

Counts counts(Database& db) {
  return {db.queryInt("SELECT count(*) FROM metrics"), db.queryInt("SELECT count(*) FROM lens"),
          db.queryInt("SELECT count(*) FROM evals"), db.queryInt("SELECT count(*) FROM events"),
          db.queryInt("SELECT count(*) FROM checkpoints")};
}

void ingest(Database& db, int64_t run, const std::vector<std::string>& lines, size_t flush_rows) {
  Ingester ingester(db, run, flush_rows, /*flush_seconds=*/60);
  for (const auto& line : lines) ASSERT_TRUE(ingester.applyLine(line)) << line;
}

TEST(Ingester, EndToEndUpdatesRunAndWritesCurves) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  Ingester ingester(*db, run, /*flush_rows=*/64, /*flush_seconds=*/60);
  for (const auto& line : syntheticLog()) ASSERT_TRUE(ingester.applyLine(line));
  EXPECT_TRUE(ingester.sawDone());
  EXPECT_EQ(ingester.done()->final_loss, 4.0);
  EXPECT_EQ(ingester.lastCheckpoint()->step, 100);

  const auto r = db->run(run);
  EXPECT_EQ(r->status, RunStatus::kFinished);
  EXPECT_EQ(r->device, "cpu");
  EXPECT_EQ(r->params, 12345);
  EXPECT_EQ(r->flops_per_token, 6.0e5);
  EXPECT_EQ(r->step, 100);
  EXPECT_EQ(r->tokens, 25600);
  EXPECT_EQ(r->flops, 1.536e10);
  EXPECT_EQ(r->final_loss, 4.0);
  EXPECT_GT(r->started, 1.5e9);
  EXPECT_GE(r->finished, r->started);
  EXPECT_GT(r->heartbeat, 1.5e9);

  const auto loss = db->readMetric(run, "train/loss");
  ASSERT_EQ(loss.size(), 100u);
  for (size_t i = 0; i < loss.size(); ++i) {
    EXPECT_EQ(loss[i].step, static_cast<int64_t>(i + 1));
    EXPECT_EQ(loss[i].tokens, loss[i].step * 256);
    EXPECT_DOUBLE_EQ(loss[i].value, 5.0 - 0.01 * loss[i].step);
    EXPECT_DOUBLE_EQ(loss[i].wall, 0.01 * loss[i].step);
  }
  EXPECT_EQ(db->readMetric(run, "val/loss").size(), 10u);
  EXPECT_EQ(db->metricKeys(run), (std::vector<std::string>{"lr", "train/loss", "val/loss"}));
  EXPECT_EQ(counts(*db), (Counts{210, 12, 1, 1, 2}));
  EXPECT_EQ(db->latestCheckpoint(run)->sha256, "sha100");
  EXPECT_EQ(db->lens(run)[0].kl, 3.0);
  EXPECT_EQ(db->evals(run)[0].correct, 9);
  EXPECT_EQ(db->events(run)[0].name, "growth");
  const auto summary = db->listRuns();
  EXPECT_DOUBLE_EQ(*summary[0].last_train_loss, 4.0);
  EXPECT_DOUBLE_EQ(*summary[0].last_val_loss, 4.1);
}

TEST(Ingester, ReplayingTheWholeLogDuplicatesNothing) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  const auto log = syntheticLog();
  ingest(*db, run, log, 16);
  const Counts once = counts(*db);
  const auto curve_once = db->readMetric(run, "train/loss");
  ingest(*db, run, log, 1000);  // same messages, other batch boundaries
  EXPECT_EQ(counts(*db), once);
  const auto curve_twice = db->readMetric(run, "train/loss");
  ASSERT_EQ(curve_twice.size(), curve_once.size());
  for (size_t i = 0; i < curve_once.size(); ++i) {
    EXPECT_EQ(curve_twice[i].step, curve_once[i].step);
    EXPECT_EQ(curve_twice[i].value, curve_once[i].value);
  }
  EXPECT_EQ(db->run(run)->status, RunStatus::kFinished);
}

TEST(Ingester, CrashThenReplayOfTheFullLogEqualsOneCleanIngest) {
  TempDir dir;
  auto crashed = Database::open(dir.file("crashed.db"));
  auto clean = Database::open(dir.file("clean.db"));
  const int64_t a = crashed->insertRun(RunRecord{});
  const int64_t b = clean->insertRun(RunRecord{});
  auto log = syntheticLog();
  ingest(*crashed, a, std::vector<std::string>(log.begin(), log.begin() + 70), 8);
  EXPECT_EQ(crashed->run(a)->status, RunStatus::kRunning);  // no done yet
  ingest(*crashed, a, log, 8);
  ingest(*clean, b, log, 8);
  EXPECT_EQ(counts(*crashed), counts(*clean));
  EXPECT_EQ(crashed->run(a)->step, clean->run(b)->step);
  EXPECT_EQ(crashed->run(a)->status, RunStatus::kFinished);
}

TEST(WorkerLogReplay, RecoversWhatTheSchedulerNeverStoredWithoutTouchingTheStatus) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  const auto log = syntheticLog(/*with_done=*/true);
  // The scheduler stored the first 40 lines, then died; the worker's own log holds everything,
  // ending in a torn line (the worker was killed mid-write).
  ingest(*db, run, std::vector<std::string>(log.begin(), log.begin() + 40), 8);
  db->setRunStatus(run, RunStatus::kInterrupted, "its scheduler stopped");
  {
    std::ofstream out(dir.file("protocol.jsonl"));
    for (const auto& line : log) out << line << "\n";
    out << "{\"type\":\"metric\",\"st";
  }
  EXPECT_GT(replayWorkerLog(*db, run, dir.file("protocol.jsonl")), 100);
  auto clean = Database::open(dir.file("clean.db"));
  const int64_t b = clean->insertRun(RunRecord{});
  ingest(*clean, b, log, 8);
  const Counts replayed = counts(*db);
  const Counts expected = counts(*clean);
  EXPECT_EQ(replayed.metrics, expected.metrics);
  EXPECT_EQ(replayed.lens, expected.lens);
  EXPECT_EQ(replayed.evals, expected.evals);
  EXPECT_EQ(replayed.checkpoints, expected.checkpoints);
  EXPECT_EQ(db->run(run)->status, RunStatus::kInterrupted);  // done/hello/error are not replayed
  EXPECT_EQ(replayWorkerLog(*db, run, dir.file("missing.jsonl")), 0);
  replayWorkerLog(*db, run, dir.file("protocol.jsonl"));
  EXPECT_EQ(counts(*db).metrics, expected.metrics);  // replaying twice duplicates nothing
}

TEST(Ingester, BatchesUntilFlushRowsOrAForcedFlush) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  auto db = Database::open(path);
  auto reader = Database::open(path, /*read_only=*/true);
  const int64_t run = db->insertRun(RunRecord{});
  const auto log = syntheticLog();
  Ingester ingester(*db, run, /*flush_rows=*/30, /*flush_seconds=*/600);
  ingester.applyLine(log[0]);  // hello: flushed at once
  EXPECT_EQ(reader->run(run)->status, RunStatus::kRunning);
  for (int i = 1; i <= 10; ++i) ingester.applyLine(log[i]);  // 20 rows: below flush_rows
  EXPECT_EQ(reader->queryInt("SELECT count(*) FROM metrics"), 0);
  for (int i = 11; i <= 14; ++i) ingester.applyLine(log[i]);  // 28 rows
  EXPECT_EQ(reader->queryInt("SELECT count(*) FROM metrics"), 0);
  ingester.applyLine(log[15]);  // 30 rows or more: flushed
  EXPECT_GE(reader->queryInt("SELECT count(*) FROM metrics"), 30);
  ingester.applyLine(protocol::encode(protocol::Metric{99, 1, 1, 1, {{"x", 1}}}));
  ingester.apply(protocol::Checkpoint{99, "/w/c", "s"});  // checkpoints flush at once
  EXPECT_EQ(reader->readMetric(run, "x").size(), 1u);
  EXPECT_EQ(reader->latestCheckpoint(run)->step, 99);
}

TEST(Ingester, FlushesAfterFlushSeconds) {
  {  // 0 s: every row is written as it comes.
    auto db = Database::open(":memory:");
    const int64_t run = db->insertRun(RunRecord{});
    Ingester ingester(*db, run, /*flush_rows=*/100000, /*flush_seconds=*/0.0);
    ingester.apply(protocol::Metric{1, 1, 1, 1, {{"train/loss", 2.0}}});
    EXPECT_EQ(db->readMetric(run, "train/loss").size(), 1u);
  }
  // 0.25 s: rows wait in the buffer until that interval has passed since the last flush, then one
  // flushIfDue (what the scheduler calls when its wait for output times out) writes them. The test
  // waits on the event (the rows appear, polled with a generous deadline), not on a fixed sleep,
  // and brackets each flush between the last look that missed the rows and the first that saw
  // them: the interval only bounds those from below, which no load on the machine can break.
  using Clock = std::chrono::steady_clock;
  constexpr double kInterval = 0.25;
  auto db = Database::open(":memory:");
  const int64_t run = db->insertRun(RunRecord{});
  const auto created = Clock::now();
  Ingester ingester(*db, run, /*flush_rows=*/100000, /*flush_seconds=*/kInterval);
  const auto rows = [&] { return db->readMetric(run, "train/loss").size(); };
  const auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  struct Flush {
    Clock::time_point missed, seen;  // the flush happened after `missed`, by `seen`
  };
  const auto wait_for_rows = [&](size_t wanted) -> std::optional<Flush> {
    Flush f{Clock::now(), Clock::now()};
    for (;;) {
      const auto look = Clock::now();
      if (rows() >= wanted) return f.seen = look, f;
      f.missed = look;
      if (seconds(created, look) > 60) return std::nullopt;
      ingester.flushIfDue();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  ingester.apply(protocol::Metric{1, 1, 1, 1, {{"train/loss", 2.0}}});
  ingester.apply(protocol::Metric{2, 2, 2, 2, {{"train/loss", 1.9}}});
  const auto first = wait_for_rows(2);
  ASSERT_TRUE(first) << "the buffered rows were never written";
  EXPECT_GE(seconds(created, first->seen), kInterval) << "flushed before the interval";
  // The interval restarts at that flush: the next row waits for it again.
  ingester.apply(protocol::Metric{3, 3, 3, 3, {{"train/loss", 1.8}}});
  const auto second = wait_for_rows(3);
  ASSERT_TRUE(second) << "the second row was never written";
  EXPECT_GE(seconds(first->missed, second->seen), kInterval) << "flushed before the interval";
}

TEST(Ingester, IgnoresLinesThatAreNotProtocol) {
  auto db = Database::open(":memory:");
  const int64_t run = db->insertRun(RunRecord{});
  Ingester ingester(*db, run);
  EXPECT_FALSE(ingester.applyLine("loading data..."));
  EXPECT_FALSE(ingester.applyLine("{not json"));
  EXPECT_FALSE(ingester.applyLine(""));
  ingester.flush();
  EXPECT_EQ(db->run(run)->status, RunStatus::kQueued);
}

TEST(Ingester, DivergedRunWithNanLossAndErrorMessages) {
  auto db = Database::open(":memory:");
  const int64_t run = db->insertRun(RunRecord{});
  {
    Ingester ingester(*db, run);
    ingester.apply(protocol::Hello{"1", "c", "cpu", -1, 10, 60});
    ingester.apply(protocol::Metric{1, 8, 480, 0.1, {{"train/loss", 3.0}}});
    ingester.apply(protocol::Metric{2, 16, 960, 0.2, {{"train/loss", std::nan("")}}});
    ingester.apply(protocol::Error{"CUDA says hello"});
    EXPECT_EQ(db->run(run)->error, "CUDA says hello");
    EXPECT_EQ(db->run(run)->status, RunStatus::kRunning);  // the caller decides on exit
    ingester.apply(protocol::Done{RunStatus::kDiverged, std::nan(""), 2, 16, 960, 0.2,
                                  "loss is NaN at step 2"});
    EXPECT_EQ(*ingester.lastError(), "CUDA says hello");
  }
  const auto r = db->run(run);
  EXPECT_EQ(r->status, RunStatus::kDiverged);
  EXPECT_FALSE(r->final_loss);
  EXPECT_EQ(r->error, "loss is NaN at step 2");
  const auto curve = db->readMetric(run, "train/loss");
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_TRUE(std::isnan(curve[1].value));
}

TEST(Ingester, ResumedWorkerLeavesAnEventAndKeepsTheFirstStartTime) {
  auto db = Database::open(":memory:");
  const int64_t run = db->insertRun(RunRecord{});
  {
    Ingester ingester(*db, run);
    ingester.apply(protocol::Hello{"1", "c", "cpu", -1, 10, 60});
  }
  const double started = db->run(run)->started;
  db->setRunStatus(run, RunStatus::kInterrupted);
  {
    Ingester ingester(*db, run);
    ingester.apply(protocol::Hello{"1", "c", "cuda:0", 500, 10, 60});
  }
  const auto r = db->run(run);
  EXPECT_EQ(r->status, RunStatus::kRunning);
  EXPECT_EQ(r->device, "cuda:0");
  EXPECT_EQ(r->started, started);
  const auto events = db->events(run);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "resumed");
  EXPECT_EQ(events[0].step, 500);
}

TEST(Ingester, DestructorFlushesWhatIsBuffered) {
  auto db = Database::open(":memory:");
  const int64_t run = db->insertRun(RunRecord{});
  {
    Ingester ingester(*db, run, 1000, 600);
    ingester.apply(protocol::Metric{1, 1, 1, 1, {{"train/loss", 2.0}}});
    EXPECT_TRUE(db->readMetric(run, "train/loss").empty());
  }
  EXPECT_EQ(db->readMetric(run, "train/loss").size(), 1u);
  EXPECT_EQ(db->run(run)->step, 1);
}

}  // namespace
}  // namespace deepladder::storage
