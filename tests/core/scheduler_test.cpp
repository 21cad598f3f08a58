// The scheduler against an in-memory run store and fake workers (shell scripts that speak the
// protocol): ordering, slot use, GPU pinning, crash retry from checkpoint, retry limit, hangs,
// cancellation and stop.
#include "core/scheduler/scheduler.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/errors.h"
#include "core/protocol.h"
#include "core/scheduler/local_backend.h"
#include "core/scheduler/scheduler_lock.h"
#include "tests/core/scheduler_fixture.h"

namespace fs = std::filesystem;
using namespace deepladder;
using namespace deepladder::scheduler;

using namespace deepladder::scheduler::fixture;

TEST_F(SchedulerTest, BiggestRunsStartFirst) {
  addRun(1, 1e9, "ok");
  addRun(2, 5e9, "ok");
  addRun(3, 3e9, "ok");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options());
  EXPECT_EQ(scheduler.run(), 3);
  EXPECT_EQ(store_.launch_order, (std::vector<int64_t>{2, 3, 1}));
  for (auto& [id, r] : store_.runs) EXPECT_EQ(r.status, RunStatus::kFinished) << r.message;
}

TEST_F(SchedulerTest, TwoSlotsRunTwoWorkersAtOnce) {
  for (int i = 1; i <= 4; ++i) addRun(i, 1e9, "ok 0.6");
  LocalBackend backend(cpuSlots(2));
  Scheduler scheduler(store_, backend, options());
  EXPECT_EQ(scheduler.run(), 4);
  // Overlap read from the workers' own start times, not from the total (which a loaded machine
  // stretches): a run started while another one was still in its 0.6 s of work.
  std::vector<double> starts;
  for (int i = 1; i <= 4; ++i)
    for (const std::string& call : calls(i))
      if (const size_t at = call.find("start="); at != std::string::npos)
        starts.push_back(std::stod(call.substr(at + 6)));
  ASSERT_EQ(starts.size(), 4u);
  std::sort(starts.begin(), starts.end());
  double closest = 1e9;
  for (size_t i = 1; i < starts.size(); ++i) closest = std::min(closest, starts[i] - starts[i - 1]);
  EXPECT_LT(closest, 0.6) << "runs did not overlap";
}

TEST_F(SchedulerTest, GpuSlotsPinOneRunPerDevice) {
  ladder::Resources r;
  r.devices = "auto";
  std::vector<Slot> slots = localSlots(r, 8, {0, 1});
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_EQ(slots[1].env.at("CUDA_VISIBLE_DEVICES"), "1");
  EXPECT_EQ(slots[0].threads, 4);
  addRun(1, 2e9, "ok 0.3");
  addRun(2, 1e9, "ok 0.3");
  LocalBackend backend(slots);
  Scheduler scheduler(store_, backend, options());
  EXPECT_EQ(scheduler.run(), 2);
  EXPECT_NE(calls(1).at(0).find("cuda=0"), std::string::npos) << calls(1).at(0);
  EXPECT_NE(calls(2).at(0).find("cuda=1"), std::string::npos) << calls(2).at(0);
}

TEST_F(SchedulerTest, CrashedRunIsRetriedWithResume) {
  addRun(1, 1e9, "crash_first");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options());
  EXPECT_EQ(scheduler.run(), 1);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFinished) << store_.runs[1].message;
  auto c = calls(1);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NE(c[0].find("resume=0"), std::string::npos);
  EXPECT_NE(c[1].find("resume=1"), std::string::npos);
}

TEST_F(SchedulerTest, RetryLimitMarksFailedWithTheReason) {
  addRun(1, 1e9, "crash_always");
  addRun(2, 0.5e9, "ok");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options(/*retries=*/1));
  EXPECT_EQ(scheduler.run(), 1);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFailed);
  EXPECT_EQ(calls(1).size(), 2u);  // first attempt + one retry
  EXPECT_NE(store_.runs[1].message.find("out of memory"), std::string::npos)
      << store_.runs[1].message;
  EXPECT_NE(store_.runs[1].message.find("signal 9"), std::string::npos) << store_.runs[1].message;
  EXPECT_EQ(store_.runs[2].status, RunStatus::kFinished);  // the ladder goes on
}

TEST_F(SchedulerTest, HungWorkerIsKilledAfterTheHeartbeatTimeout) {
  addRun(1, 1e9, "hang");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options(/*retries=*/0, /*heartbeat=*/0.5));
  const auto start = std::chrono::steady_clock::now();
  scheduler.run();
  EXPECT_LT(seconds(start), 10.0);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFailed);
  EXPECT_NE(store_.runs[1].message.find("hung"), std::string::npos) << store_.runs[1].message;
}

TEST_F(SchedulerTest, StopInterruptsActiveRuns) {
  addRun(1, 1e9, "ok 20");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    scheduler.stop();
  });
  const auto start = std::chrono::steady_clock::now();
  scheduler.run();
  stopper.join();
  EXPECT_LT(seconds(start), 10.0);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kInterrupted) << store_.runs[1].message;
}

TEST_F(SchedulerTest, CancelledRunStops) {
  addRun(1, 1e9, "ok 20");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options());
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    store_.runs[1].cancel = true;
  });
  scheduler.run();
  canceller.join();
  EXPECT_EQ(store_.runs[1].status, RunStatus::kCancelled);
}

// A stop that arrives after the worker has reported its run done (a halving decision on a short
// run, or a cancel) ends a run that is complete: it stays finished, never "cancelled by the user".
TEST_F(SchedulerTest, RunThatEndedBeforeItsCancelStaysFinished) {
  addRun(1, 1e9, "done_then_sleep");
  store_.runs[1].cancel_after_done = true;
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options());
  scheduler.run();
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFinished) << store_.runs[1].message;
}

TEST(SchedulerLock, SecondSchedulerOnTheSameDatabaseIsRefused) {
  const std::string db = "/tmp/deepladder-lock-test-" + std::to_string(getpid()) + ".db";
  {
    SchedulerLock first(db);
    EXPECT_THROW(SchedulerLock second(db), UserError);
  }
  SchedulerLock again(db);  // released with the first
  fs::remove(db + ".scheduler.lock");
}

// --- data-parallel runs: one run, several slots --------------------------------------

// The value of `key=` in a calls line ("rank=1 world=2 ..." -> "1").
std::string field(const std::string& line, const std::string& key) {
  const size_t at = line.find(key + "=");
  if (at == std::string::npos) return "";
  const size_t begin = at + key.size() + 1;
  return line.substr(begin, line.find(' ', begin) - begin);
}

TEST_F(SchedulerTest, DataParallelRunTakesOneSlotPerRankAsOneRun) {
  addRun(1, 5e9, "ok 0.3", /*ranks=*/2);
  addRun(2, 1e9, "ok", /*ranks=*/1);
  LocalBackend backend(cpuSlots(2));
  Scheduler scheduler(store_, backend, options());
  EXPECT_EQ(scheduler.run(), 2);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFinished) << store_.runs[1].message;
  EXPECT_EQ(store_.launch_order, (std::vector<int64_t>{1, 2}));
  const auto c = calls(1);
  ASSERT_EQ(c.size(), 2u);
  std::set<std::string> ranks = {field(c[0], "rank"), field(c[1], "rank")};
  EXPECT_EQ(ranks, (std::set<std::string>{"0", "1"}));
  EXPECT_EQ(field(c[0], "world"), "2");
  EXPECT_EQ(field(c[0], "port"), field(c[1], "port"));
  EXPECT_NE(field(c[0], "port"), "unset");
  EXPECT_EQ(field(calls(2).at(0), "rank"), "unset");  // a single-rank run gets no rendezvous
}

TEST_F(SchedulerTest, DataParallelRanksEachGetTheirOwnGpu) {
  ladder::Resources r;
  r.devices = "auto";
  addRun(1, 1e9, "ok", /*ranks=*/2);
  LocalBackend backend(localSlots(r, 8, {0, 1}));
  Scheduler scheduler(store_, backend, options());
  EXPECT_EQ(scheduler.run(), 1);
  const auto c = calls(1);
  ASSERT_EQ(c.size(), 2u);
  for (const auto& line : c) EXPECT_EQ(field(line, "cuda"), field(line, "rank")) << line;
}

TEST_F(SchedulerTest, DeadRankStopsTheOthersAndTheRunResumes) {
  addRun(1, 1e9, "rank1_crash_first", /*ranks=*/2);
  LocalBackend backend(cpuSlots(2));
  Scheduler scheduler(store_, backend, options());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(scheduler.run(), 1);
  EXPECT_LT(seconds(start), 10.0) << "rank 0 was left waiting for its dead peer";
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFinished) << store_.runs[1].message;
  const auto c = calls(1);
  ASSERT_EQ(c.size(), 4u);  // two ranks, two attempts
  int resumed = 0;
  for (const auto& line : c) resumed += field(line, "resume") == "1";
  EXPECT_EQ(resumed, 2);
}

TEST_F(SchedulerTest, RunWiderThanTheBackendFailsWithTheReason) {
  addRun(1, 5e9, "ok", /*ranks=*/3);
  addRun(2, 1e9, "ok");
  LocalBackend backend(cpuSlots(2));
  Scheduler scheduler(store_, backend, options());
  EXPECT_EQ(scheduler.run(), 1);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFailed);
  EXPECT_NE(store_.runs[1].message.find("train.ranks = 3"), std::string::npos)
      << store_.runs[1].message;
  EXPECT_EQ(store_.runs[2].status, RunStatus::kFinished);
}

TEST_F(SchedulerTest, WideRunIsNotOvertakenBySmallerOnes) {
  addRun(1, 9e9, "ok 0.5");
  addRun(2, 5e9, "ok", /*ranks=*/2);
  addRun(3, 1e9, "ok");
  LocalBackend backend(cpuSlots(2));
  Scheduler scheduler(store_, backend, options());
  EXPECT_EQ(scheduler.run(), 3);
  EXPECT_EQ(store_.launch_order, (std::vector<int64_t>{1, 2, 3}));
}
