// The scheduler over a database queue (storage/queue_execution.h) with a fake worker (a shell
// script that prints protocol lines): each line is decoded once, by the run's sink, and reaches
// the listeners typed; an evaluation goes through the same scheduler and ingester, stores its
// points and leaves the run's status and progress alone; a queue of one runs just that run.
#include "storage/queue_execution.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "core/protocol.h"
#include "storage/evaluation_run_store.h"
#include "storage/run_store_sqlite.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

// A worker that prints `lines` and exits 0, whatever its arguments.
std::string fakeWorker(const testing::TempDir& dir, const std::vector<std::string>& lines) {
  const std::string path = dir.file("fake-worker.sh");
  std::ofstream out(path);
  out << "#!/bin/sh\n";
  for (const std::string& line : lines) out << "echo '" << line << "'\n";
  out.close();
  ::chmod(path.c_str(), 0755);
  return path;
}

int64_t addRun(Database& db, const testing::TempDir& dir, const std::string& name, RunStatus status,
               int64_t steps) {
  RunRecord r;
  r.name = name;
  r.status = status;
  r.workdir = dir.file(name);
  std::filesystem::create_directories(r.workdir);
  r.plan.steps = steps;
  r.plan.flops = 1e9;
  return db.insertRun(r);
}

ladder::Resources oneCpuSlot() {
  ladder::Resources resources;
  resources.devices = "cpu";
  resources.slots = 1;
  resources.retries = 0;
  return resources;
}

TEST(QueueExecution, EachWorkerLineIsDecodedOnceAndReachesListenersTyped) {
  testing::TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t id = addRun(*db, dir, "one", RunStatus::kQueued, 3);
  addRun(*db, dir, "other", RunStatus::kQueued, 3);  // not in this queue of one
  std::vector<std::string> lines = {
      protocol::encode(protocol::Hello{"1", "h", "cpu", -1, 10, 60.0}),
      "a stray print, not a protocol line"};
  for (int step = 1; step <= 3; ++step)
    lines.push_back(protocol::encode(
        protocol::Metric{step, step * 64, step * 1e3, 0.1 * step, {{"train/loss", 4.0 - step}}}));
  lines.push_back(
      protocol::encode(protocol::Done{RunStatus::kFinished, 1.0, 3, 192, 3e3, 0.3, ""}));
  QueueExecution execution(std::make_unique<SqliteRunStore>(SqliteRunStore::singleRun(*db, id)),
                           oneCpuSlot(), fakeWorker(dir, lines));
  std::vector<int64_t> steps;
  int typed_lines = 0;
  execution.scheduler().onEvent([&](const scheduler::SchedulerEvent& e) {
    if (e.kind == scheduler::SchedulerEvent::kLine && e.message) ++typed_lines;
    if (const auto update = progressUpdate(e)) steps.push_back(update->step);
  });
  const uint64_t before = protocol::decodeCalls();
  execution.scheduler().run();
  EXPECT_EQ(protocol::decodeCalls() - before, lines.size()) << "one decode per line";
  EXPECT_EQ(typed_lines, static_cast<int>(lines.size()) - 1);
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(db->run(id)->status, RunStatus::kFinished);
  EXPECT_EQ(db->readMetric(id, "train/loss").size(), 3u);
  EXPECT_EQ(db->listRuns()[1].run.status, RunStatus::kQueued)
      << "the other run is not in this queue";
}

TEST(QueueExecution, AnEvaluationWritesThroughTheIngesterAndLeavesTheRunAlone) {
  testing::TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t id = addRun(*db, dir, "trained", RunStatus::kFinished, 100);
  db->updateRunProgress(id, 100, 6400, 5e9, 1.0);
  std::vector<std::string> lines = {
      protocol::encode(protocol::Hello{"1", "h", "cpu", 100, 10, 60.0})};
  for (int passes = 1; passes <= 3; ++passes)
    lines.push_back(protocol::encode(
        protocol::Metric{passes, 6400, 5e9, 0.1, {{"val/loss@passes", 3.0 - 0.5 * passes}}}));
  lines.push_back(
      protocol::encode(protocol::Done{RunStatus::kFinished, 1.5, 100, 6400, 5e9, 0.3, "3 passes"}));
  auto store = std::make_unique<EvaluationRunStore>(*db, *db->run(id), "1..3");
  EvaluationRunStore& evaluation = *store;
  QueueExecution execution(std::move(store), oneCpuSlot(), fakeWorker(dir, lines));
  execution.scheduler().run();
  ASSERT_TRUE(evaluation.outcome());
  EXPECT_EQ(evaluation.outcome()->status, RunStatus::kFinished);
  const auto points = db->readMetric(id, "val/loss@passes");
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[2].step, 3);
  EXPECT_DOUBLE_EQ(points[2].value, 1.5);
  const auto run = db->run(id);
  EXPECT_EQ(run->status, RunStatus::kFinished);
  EXPECT_EQ(run->step, 100) << "the evaluation's steps (core passes) are not the run's progress";
  EXPECT_EQ(run->attempt, 0);
  EXPECT_TRUE(std::filesystem::exists(dir.file("trained/eval.log")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("trained/worker.log")));
}

}  // namespace
}  // namespace deepladder::storage
