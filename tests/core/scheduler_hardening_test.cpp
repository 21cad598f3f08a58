// The scheduler against workers that misbehave in ways a retry cannot mend: a worker that says
// its input is bad (exit status 2) is not retried; a done with an unknown status fails the run
// instead of crashing the scheduler; a run whose worker cannot even be started (its directory
// is gone) fails with the reason, and the ladder goes on.
#include <gtest/gtest.h>

#include "core/scheduler/local_backend.h"
#include "core/scheduler/scheduler.h"
#include "tests/core/scheduler_fixture.h"

using namespace deepladder::scheduler;
using namespace deepladder::scheduler::fixture;
using deepladder::RunStatus;

TEST_F(SchedulerTest, BadInputExitIsNeverRetried) {
  addRun(1, 1e9, "bad_input");
  addRun(2, 0.5e9, "ok");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options(/*retries=*/3));
  EXPECT_EQ(scheduler.run(), 1);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFailed);
  EXPECT_EQ(calls(1).size(), 1u) << "a run whose worker exited 2 (bad input) was retried";
  EXPECT_NE(store_.runs[1].message.find("no such file"), std::string::npos)
      << store_.runs[1].message;
  EXPECT_NE(store_.runs[1].message.find("not retried"), std::string::npos)
      << store_.runs[1].message;
  EXPECT_EQ(store_.runs[2].status, RunStatus::kFinished);
}

TEST_F(SchedulerTest, UnknownDoneStatusFailsTheRunAndTheLadderGoesOn) {
  addRun(1, 1e9, "odd_done");
  addRun(2, 0.5e9, "ok");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options(/*retries=*/0));
  EXPECT_EQ(scheduler.run(), 1);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFailed) << store_.runs[1].message;
  EXPECT_EQ(store_.runs[2].status, RunStatus::kFinished);
}

TEST_F(SchedulerTest, RunWhoseWorkerCannotStartFailsWithTheReason) {
  addRun(1, 1e9, "ok");
  addRun(2, 0.5e9, "ok");
  fs::remove_all(store_.runs[1].pending.workdir);  // its log file cannot be opened
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, options(/*retries=*/1));
  EXPECT_EQ(scheduler.run(), 1);
  EXPECT_EQ(store_.runs[1].status, RunStatus::kFailed);
  EXPECT_NE(store_.runs[1].message.find("could not be started"), std::string::npos)
      << store_.runs[1].message;
  EXPECT_EQ(store_.runs[2].status, RunStatus::kFinished);
}
