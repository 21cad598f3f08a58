// Warm standby workers of the local backend (core/scheduler/standby_pool.h): runs dispatched to
// a slot's standby finish like cold-launched ones, standbys end with the scheduler (also when it
// is killed), a killed standby means a cold launch and a fresh standby. The fake worker of
// scheduler_fixture.h is wrapped in a fake standby that speaks the standby's side (ready line,
// one assignment line on stdin) and notes in <workdir>/standby that the run came through it.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "core/errors.h"
#include "core/worker_assignment.h"
#include "tests/core/scheduler_fixture.h"

using namespace deepladder;
using namespace deepladder::scheduler;
using namespace deepladder::scheduler::fixture;

namespace {

// Paths in these tests hold no comma, quote or space: the JSON array splits on commas.
constexpr const char* kFakeStandby = R"SH(#!/bin/sh
here=$(dirname "$0")
if [ "$1" != --standby ]; then exec "$here/fake-worker.sh" "$@"; fi
echo '{"standby":"ready"}'
read line || exit 0
args=$(echo "$line" | sed 's/^{"args":\[\(.*\)\],"env".*/\1/' | tr -d '"' | tr ',' ' ')
set -- $args
workdir=""; for a in "$@"; do [ "$prev" = --workdir ] && workdir="$a"; prev="$a"; done
echo "standby pid=$$" >> "$workdir/standby"
exec "$here/fake-worker.sh" "$@"
)SH";

// Alive and not a zombie.
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

bool endsWithin(pid_t pid, double seconds_allowed) {
  const auto start = std::chrono::steady_clock::now();
  while (running(pid)) {
    if (seconds(start) > seconds_allowed) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

class StandbyTest : public SchedulerTest {
 protected:
  void SetUp() override {
    SchedulerTest::SetUp();
    standby_ = (dir_ / "fake-standby.sh").string();
    std::ofstream(standby_) << kFakeStandby;
    chmod(standby_.c_str(), 0755);
  }
  SchedulerOptions standbyOptions() {
    SchedulerOptions o = options();
    o.worker_path = standby_;
    o.standby_workers = SchedulerOptions::Standby::kAlways;
    return o;
  }
  bool cameThroughStandby(int64_t id) {
    return fs::exists(store_.runs[id].pending.workdir + "/standby");
  }
  std::string standby_;
};

TEST_F(StandbyTest, RunsAfterTheFirstTakeTheSlotsStandbyAndFinishAlike) {
  for (int i = 1; i <= 4; ++i) addRun(i, 5e9 - i * 1e9, "ok 0.2");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, standbyOptions());
  EXPECT_EQ(scheduler.run(), 4);
  for (auto& [id, r] : store_.runs) {
    EXPECT_EQ(r.status, RunStatus::kFinished) << r.message;
    EXPECT_EQ(r.lines.size(), 3u) << "run " << id;  // hello, metric, done: no ready line
    EXPECT_EQ(r.lines.at(0).find("standby"), std::string::npos) << r.lines.at(0);
  }
  EXPECT_FALSE(cameThroughStandby(1)) << "the first run has no standby to take";
  for (int id = 2; id <= 4; ++id) EXPECT_TRUE(cameThroughStandby(id)) << "run " << id;
  EXPECT_EQ(backend.standbyLaunches(), 3);
  EXPECT_TRUE(backend.standbyPids().empty()) << "the last run leaves no standby behind";
}

TEST_F(StandbyTest, StandbysEndWithTheScheduler) {
  for (int i = 1; i <= 3; ++i) addRun(i, 1e9, "ok 5");
  LocalBackend backend(cpuSlots(1));
  Scheduler scheduler(store_, backend, standbyOptions());
  std::vector<pid_t> seen;
  scheduler.onEvent([&](const SchedulerEvent& event) {
    if (event.kind != SchedulerEvent::kLine) return;
    for (pid_t pid : backend.standbyPids()) seen.push_back(pid);
    scheduler.stop();
  });
  scheduler.run();
  ASSERT_FALSE(seen.empty()) << "runs were waiting: the slot should have had a standby";
  for (pid_t pid : seen) EXPECT_TRUE(endsWithin(pid, 5)) << "standby " << pid << " outlived run()";
  for (auto& [id, r] : store_.runs) EXPECT_FALSE(cameThroughStandby(id));
}

TEST_F(StandbyTest, StandbysDieWhenTheSchedulerIsKilled) {
  const std::string pid_file = (dir_ / "standby.pid").string();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a scheduler process that holds a standby, then is killed with -9
    LocalBackend backend(cpuSlots(1));
    backend.prepareStandbys(backend.slots(), standby_);
    std::ofstream(pid_file) << backend.standbyPids().at(0) << "\n";
    ::pause();
    ::_exit(0);
  }
  pid_t standby = 0;
  for (int i = 0; i < 250 && standby == 0; ++i) {
    std::ifstream(pid_file) >> standby;
    if (standby == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(standby, 0);
  EXPECT_TRUE(running(standby));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(endsWithin(standby, 5)) << "standby " << standby << " outlived its scheduler";
}

TEST_F(StandbyTest, AKilledStandbyMeansAColdLaunchAndAFreshStandby) {
  addRun(1, 1e9, "ok");
  LocalBackend backend(cpuSlots(1));
  const std::vector<Slot> slots = backend.slots();
  backend.prepareStandbys(slots, standby_);
  const pid_t first = backend.standbyPids().at(0);
  ::kill(first, SIGKILL);
  ASSERT_TRUE(endsWithin(first, 5));
  auto execution = backend.launch(store_.runs[1].pending, slots, standby_);
  std::vector<std::string> lines;
  while (execution->pollOutput([&](const std::string& l) { lines.push_back(l); })) {
  }
  while (!execution->finished()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(backend.standbyLaunches(), 0);
  EXPECT_FALSE(cameThroughStandby(1));
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("\"done\""), std::string::npos) << lines.back();
  backend.prepareStandbys(slots, standby_);
  ASSERT_EQ(backend.standbyPids().size(), 1u);
  EXPECT_NE(backend.standbyPids()[0], first);
  backend.dropStandbys();
}

TEST_F(StandbyTest, AWorkerThatIsNoStandbyIsAskedOnceThenRunsLaunchCold) {
  const std::string no_standby = (dir_ / "no-standby.sh").string();
  std::ofstream(no_standby) << "#!/bin/sh\nhere=$(dirname \"$0\")\n"
                            << "if [ \"$1\" = --standby ]; then echo asked >> \"$here/asked\"; "
                            << "echo 'unknown argument --standby'; exit 2; fi\n"
                            << "exec \"$here/fake-worker.sh\" \"$@\"\n";
  chmod(no_standby.c_str(), 0755);
  for (int i = 1; i <= 4; ++i) addRun(i, 5e9 - i * 1e9, "ok 0.1");
  LocalBackend backend(cpuSlots(1));
  SchedulerOptions o = standbyOptions();
  o.worker_path = no_standby;
  Scheduler scheduler(store_, backend, o);
  EXPECT_EQ(scheduler.run(), 4);
  for (auto& [id, r] : store_.runs) EXPECT_EQ(r.status, RunStatus::kFinished) << r.message;
  EXPECT_EQ(backend.standbyLaunches(), 0);
  std::ifstream asked(dir_ / "asked");
  int times = 0;
  for (std::string line; std::getline(asked, line);) ++times;
  EXPECT_EQ(times, 1);
}

TEST(StandbyPolicy, StandbysLoadOnlyOnASpareCoreUnlessAlwaysAsked) {
  const auto cores = static_cast<int64_t>(std::thread::hardware_concurrency());
  ladder::Resources cpu;
  cpu.devices = "cpu";
  EXPECT_FALSE(LocalBackend(localSlots(cpu, cores, {})).coresToSpare())
      << "default CPU slots compute on every core";
  cpu.slots = 1;
  cpu.threads_per_slot = cores;
  EXPECT_FALSE(LocalBackend(localSlots(cpu, cores, {})).coresToSpare());
  cpu.threads_per_slot = cores - 1;
  EXPECT_EQ(LocalBackend(localSlots(cpu, cores, {})).coresToSpare(), cores > 1);
  ladder::Resources gpu;
  gpu.devices = "0,1";
  EXPECT_TRUE(LocalBackend(localSlots(gpu, cores, {0, 1})).coresToSpare());
}

// How their OpenMP threads wait (scheduler::workerEnvironment): slots that share the machine's
// cores wait passively; a lone slot spins briefly before it sleeps; the user's own setting wins.
TEST(StandbyPolicy, OnlyALoneSlotsWorkersSpinBeforeTheySleep) {
  ladder::Resources cpu;
  cpu.devices = "cpu";
  cpu.slots = 1;
  EXPECT_FALSE(localSlots(cpu, 4, {}).at(0).shares_cores);
  cpu.slots = 2;
  for (const Slot& slot : localSlots(cpu, 4, {})) EXPECT_TRUE(slot.shares_cores) << slot.name;
  ladder::Resources gpu;
  gpu.devices = "0";
  EXPECT_FALSE(localSlots(gpu, 4, {0}).at(0).shares_cores);
  gpu.devices = "0,1";
  EXPECT_TRUE(localSlots(gpu, 4, {0, 1}).at(1).shares_cores);

  const char* user_policy = std::getenv("OMP_WAIT_POLICY");
  const char* user_spin = std::getenv("GOMP_SPINCOUNT");
  const std::string saved_policy = user_policy ? user_policy : "";
  const std::string saved_spin = user_spin ? user_spin : "";
  ::unsetenv("OMP_WAIT_POLICY");
  ::unsetenv("GOMP_SPINCOUNT");
  using Env = std::map<std::string, std::string>;
  EXPECT_EQ(workerEnvironment(true), (Env{{"OMP_WAIT_POLICY", "PASSIVE"}}));
  EXPECT_EQ(workerEnvironment(false), (Env{{"GOMP_SPINCOUNT", "300000"}}));
  ::setenv("GOMP_SPINCOUNT", "1000", 1);
  EXPECT_TRUE(workerEnvironment(false).empty());
  EXPECT_TRUE(workerEnvironment(true).empty());
  ::unsetenv("GOMP_SPINCOUNT");
  if (user_policy) ::setenv("OMP_WAIT_POLICY", saved_policy.c_str(), 1);
  if (user_spin) ::setenv("GOMP_SPINCOUNT", saved_spin.c_str(), 1);
}

TEST(WorkerAssignment, RoundTripsAndRefusesGarbage) {
  WorkerAssignment a;
  a.args = {"--config", "/w/config.json", "--run-id", "3"};
  a.env = {{"DEEPLADDER_DIST_TIMEOUT_S", "60"}};
  a.stderr_path = "/w/worker.log";
  const WorkerAssignment b = decodeAssignment(encodeAssignment(a));
  EXPECT_EQ(b.args, a.args);
  EXPECT_EQ(b.env, a.env);
  EXPECT_EQ(b.stderr_path, a.stderr_path);
  EXPECT_EQ(encodeAssignment(a).find('\n'), std::string::npos);
  EXPECT_THROW(decodeAssignment("{\"env\":{}}"), UserError);
  EXPECT_THROW(decodeAssignment("not json"), UserError);
  EXPECT_TRUE(readAtLoadTime("OMP_NUM_THREADS"));
  EXPECT_FALSE(readAtLoadTime("CUDA_VISIBLE_DEVICES"));
}

}  // namespace
