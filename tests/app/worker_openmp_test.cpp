// The worker's OpenMP threads wait passively unless the environment chooses otherwise: libgomp
// itself reports the policy it took (OMP_DISPLAY_ENV=VERBOSE), here for a worker that stops at
// once on a missing argument.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "core/worker_process.h"
#include "tests/app/cli_fixture.h"

using namespace deepladder;
using namespace deepladder::cli_fixture;

namespace {

class WorkerOpenMp : public CliTest {
 protected:
  // stderr of the worker started with `env` (on top of this process's environment, without
  // OMP_WAIT_POLICY).
  std::string workerStderr(std::map<std::string, std::string> env) const {
    ::unsetenv("OMP_WAIT_POLICY");
    ProcessSpec spec;
    spec.argv = {std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder-worker"};
    spec.env = std::move(env);
    spec.stderr_path = path("stderr.txt");
    std::filesystem::remove(spec.stderr_path);
    WorkerProcess process(spec);
    process.runToEnd([](const std::string&) {});
    std::ifstream in(spec.stderr_path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(WorkerOpenMp, WaitsPassivelyUnlessTheEnvironmentSaysOtherwise) {
  // libgomp prints 'PASSIVE' for an unset policy too; the spin count tells them apart (300000
  // spins before sleeping when unset, none when passive).
  const std::string unset = workerStderr({{"OMP_DISPLAY_ENV", "VERBOSE"}});
  EXPECT_NE(unset.find("GOMP_SPINCOUNT = '0'"), std::string::npos) << unset;
  const std::string active =
      workerStderr({{"OMP_DISPLAY_ENV", "VERBOSE"}, {"OMP_WAIT_POLICY", "ACTIVE"}});
  EXPECT_NE(active.find("OMP_WAIT_POLICY = 'ACTIVE'"), std::string::npos) << active;
}

}  // namespace
