// The worker's OpenMP threads wait passively when the scheduler launches it, unless the user's
// environment chooses otherwise: libgomp itself reports the policy it took
// (OMP_DISPLAY_ENV=VERBOSE), here for a worker launched through the local backend (the one launch
// path of `run`, `resume`, `train`, `eval` and the workbench) that stops at once on a missing
// config. A worker started by hand without the variable says how to set it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "core/scheduler/local_backend.h"
#include "core/worker_process.h"
#include "tests/app/cli_fixture.h"

using namespace deepladder;
using namespace deepladder::cli_fixture;

namespace {

const std::string kWorker = std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder-worker";

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class WorkerOpenMp : public CliTest {
 protected:
  // The worker log of a run launched by the local backend while this process's environment has
  // OMP_WAIT_POLICY = `policy` (nullptr: unset), on a slot that shares the cores or a lone one.
  std::string launchedWorkerLog(const char* policy, const std::string& name,
                                bool shares_cores = true) const {
    if (policy)
      ::setenv("OMP_WAIT_POLICY", policy, 1);
    else
      ::unsetenv("OMP_WAIT_POLICY");
    ::setenv("OMP_DISPLAY_ENV", "VERBOSE", 1);
    scheduler::PendingRun run;
    run.id = 1;
    run.name = name;
    run.workdir = path(name);
    std::filesystem::create_directories(run.workdir);
    scheduler::Slot slot;
    slot.name = "cpu0";
    slot.shares_cores = shares_cores;
    scheduler::LocalBackend backend({slot});
    auto execution = backend.launch(run, {slot}, kWorker);
    while (execution->pollOutput([](const std::string&) {})) {
    }
    while (!execution->finished()) {
    }
    ::unsetenv("OMP_DISPLAY_ENV");
    ::unsetenv("OMP_WAIT_POLICY");
    return readAll(run.workdir + "/worker.log");
  }
};

TEST_F(WorkerOpenMp, WaitsPassivelyBesideOtherSlotsUnlessTheEnvironmentSaysOtherwise) {
  // libgomp prints 'PASSIVE' for an unset policy too; the spin count tells them apart (300000
  // spins before sleeping when unset, none when passive).
  const std::string unset = launchedWorkerLog(nullptr, "unset");
  EXPECT_NE(unset.find("GOMP_SPINCOUNT = '0'"), std::string::npos) << unset;
  EXPECT_EQ(unset.find("OMP_WAIT_POLICY is unset"), std::string::npos) << unset;
  const std::string active = launchedWorkerLog("ACTIVE", "active");
  EXPECT_NE(active.find("OMP_WAIT_POLICY = 'ACTIVE'"), std::string::npos) << active;
  // The only slot on the machine: its threads spin libgomp's default count before they sleep,
  // and the worker knows the launcher chose (no advice line).
  const std::string lone = launchedWorkerLog(nullptr, "lone", /*shares_cores=*/false);
  EXPECT_NE(lone.find("GOMP_SPINCOUNT = '300000'"), std::string::npos) << lone;
  EXPECT_EQ(lone.find("OMP_WAIT_POLICY is unset"), std::string::npos) << lone;
}

TEST_F(WorkerOpenMp, AWorkerStartedByHandWithoutThePolicySaysHowToSetIt) {
  ::unsetenv("OMP_WAIT_POLICY");
  ProcessSpec spec;
  spec.argv = {kWorker};
  spec.stderr_path = path("by-hand.txt");
  WorkerProcess process(spec);
  process.runToEnd([](const std::string&) {});
  const std::string err = readAll(spec.stderr_path);
  EXPECT_NE(err.find("OMP_WAIT_POLICY is unset"), std::string::npos) << err;
  EXPECT_NE(err.find("OMP_WAIT_POLICY=PASSIVE"), std::string::npos) << err;
}

}  // namespace
