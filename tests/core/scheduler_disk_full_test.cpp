// A full disk stops the queue and leaves every run resumable: a worker
// that finds its work directory full ends interrupted, not failed, and nothing more is launched
// into the same disk; a store (the database) that finds its disk full stops every worker and
// stores it interrupted instead of leaving it "running" behind a raw SQLite error.
#include <gtest/gtest.h>

#include "core/disk_full.h"
#include "core/run_status.h"
#include "tests/core/scheduler_fixture.h"

namespace deepladder::scheduler::fixture {
namespace {

// The memory store, with a database whose disk fills at the first metric of a run.
class FullStore : public MemoryStore {
 public:
  std::unique_ptr<RunSink> sink(int64_t id) override {
    class FullSink : public MemorySink {
     public:
      using MemorySink::MemorySink;
      std::optional<protocol::Message> line(const std::string& l) override {
        if (l.find("\"metric\"") != std::string::npos)
          throw DiskFullError("the disk holding the database /x/runs.db is full");
        return MemorySink::line(l);
      }
    };
    return std::make_unique<FullSink>(runs[id]);
  }
};

}  // namespace

TEST_F(SchedulerTest, AWorkerOnAFullDiskEndsInterruptedAndStopsTheQueue) {
  addRun(1, 1e9, "disk_full");
  addRun(2, 0.5e9, "ok");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options(/*retries=*/3));
  EXPECT_EQ(scheduler.run(), 0);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kInterrupted) << store_.runs[1].message;
  EXPECT_NE(store_.runs[1].message.find("full disk"), std::string::npos) << store_.runs[1].message;
  EXPECT_EQ(calls(1).size(), 1u) << "a run stopped by a full disk was retried into it";
  // The next run was not launched into the same full disk: it waits, queued, for `resume`.
  EXPECT_EQ(store_.runs[2].status, RunStatus::kQueued);
  EXPECT_TRUE(calls(2).empty());
}

TEST_F(SchedulerTest, AFullDatabaseStopsTheWorkersAndLeavesNoRunRunning) {
  FullStore full;
  MemoryRun run;
  run.pending.id = 1;
  run.pending.name = "run1";
  run.pending.flops = 1e9;
  run.pending.workdir = (dir_ / "run1").string();
  fs::create_directories(run.pending.workdir);
  std::ofstream(run.pending.workdir + "/behaviour") << "metric_then_sleep\n";
  full.runs[1] = run;
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(full, backend, options());
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  try {
    scheduler.run();
  } catch (const DiskFullError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("runs.db is full"), std::string::npos) << message;
  EXPECT_NE(message.find("deepladder resume"), std::string::npos) << message;
  EXPECT_EQ(full.runs[1].status, RunStatus::kInterrupted) << full.runs[1].message;
  EXPECT_LT(seconds(start), 15.0) << "the worker (silent for 30 s) was waited for, not stopped";
}

}  // namespace deepladder::scheduler::fixture
