// A worker that finds its disk full exits kExitDiskFull (core/disk_full.h): its run is
// interrupted, resumable, not failed and not retried into the same full disk (before, `resume`
// said "nothing to resume" after a full disk stopped a run).
#include <gtest/gtest.h>

#include "core/disk_full.h"
#include "core/run_outcome.h"

using namespace deepladder;

TEST(DiskFullOutcome, AWorkerStoppedByAFullDiskLeavesAnInterruptedRun) {
  ProcessExit exit;
  exit.exited = true;
  exit.code = kExitDiskFull;
  const RunOutcome outcome =
      decideRunOutcome(std::nullopt, "", exit, /*interrupted=*/false,
                       "disk full: cannot write /w/ckpt-8.pt.tmp: No space left on device");
  EXPECT_EQ(outcome.status, RunStatus::kInterrupted);
  EXPECT_TRUE(outcome.disk_full);
  EXPECT_FALSE(outcome.bad_input);
  EXPECT_NE(outcome.message.find("stopped by a full disk"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("ckpt-8.pt.tmp"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("deepladder resume"), std::string::npos) << outcome.message;
}

TEST(DiskFullOutcome, OtherExitsStayFailed) {
  ProcessExit exit;
  exit.exited = true;
  exit.code = 1;
  const RunOutcome outcome = decideRunOutcome(std::nullopt, "", exit, false, "boom");
  EXPECT_EQ(outcome.status, RunStatus::kFailed);
  EXPECT_FALSE(outcome.disk_full);
}

TEST(DiskFullOutcome, FullDiskErrnosAreRecognised) {
  EXPECT_TRUE(isDiskFullErrno(ENOSPC));
  EXPECT_TRUE(isDiskFullErrno(EDQUOT));
  EXPECT_TRUE(isDiskFullErrno(EFBIG));
  EXPECT_FALSE(isDiskFullErrno(EACCES));
}
