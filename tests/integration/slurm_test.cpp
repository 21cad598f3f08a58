// The Slurm backend for real: starts munged, slurmctld and slurmd on localhost in a private
// directory (scripts/slurm-local: its own key, socket, slurm.conf, free ports), runs a 2-run
// ladder through the real `deepladder run` with backend = "slurm", and checks that both runs
// finished as Slurm jobs with their metrics in SQLite. A second test kills a job from outside
// (as preemption would) and checks the scheduler retries it from its checkpoint.
// Skips (GTEST_SKIP) when not root or when Debian's munge/slurmctld/slurmd are not installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "core/worker_process.h"
#include "storage/database.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Result {
  int code = -1;
  std::string out, err;
};

// Runs a program (argv, no shell) with a time limit; stderr is collected through a file.
Result runProgram(const std::vector<std::string>& argv, const fs::path& scratch, double timeout_s,
                  const std::function<void()>& on_idle = {}) {
  ProcessSpec spec;
  spec.argv = argv;
  static int calls = 0;  // one file per call: calls nest (on_idle runs scancel)
  spec.stderr_path = (scratch / ("stderr-" + std::to_string(++calls) + ".txt")).string();
  fs::remove(spec.stderr_path);
  WorkerProcess process(spec);
  Result result;
  const auto start = std::chrono::steady_clock::now();
  bool killed = false;
  ProcessExit exit = process.runToEnd([&](const std::string& line) { result.out += line + "\n"; },
                                      [&] {
                                        if (on_idle) on_idle();
                                        if (!killed && secondsSince(start) > timeout_s) {
                                          killed = true;
                                          process.terminate(SIGKILL);
                                        }
                                      },
                                      200);
  result.code = exit.exited ? exit.code : 128 + exit.signal;
  result.err = readFile(spec.stderr_path);
  if (killed) result.err += "\n(killed after " + std::to_string(int(timeout_s)) + " s)";
  return result;
}

bool executable(const std::string& path) {
  return ::access(path.c_str(), X_OK) == 0;
}

std::string missingSlurmPrograms() {
  std::string missing;
  for (const char* p :
       {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch",
        "/usr/bin/squeue", "/usr/bin/scancel", "/usr/bin/sinfo", "/usr/bin/scontrol"})
    if (!executable(p)) missing += std::string(missing.empty() ? "" : ", ") + p;
  return missing;
}

// A private cluster for the life of the object: started by scripts/slurm-local, always stopped.
class LocalSlurm {
 public:
  explicit LocalSlurm(fs::path dir) : dir_(std::move(dir)) {}
  ~LocalSlurm() { stop(); }

  // "" on success, else what went wrong (with the daemons' log tails).
  std::string start() {
    const auto t0 = std::chrono::steady_clock::now();
    const Result r = runProgram({script(), "start", dir_.string()}, dir_.parent_path(), 120);
    started_ = true;
    start_seconds_ = secondsSince(t0);
    if (r.code != 0)
      return "scripts/slurm-local start failed (" + std::to_string(r.code) + "):\n" + r.err;
    ::setenv("SLURM_CONF", (dir_ / "slurm.conf").c_str(), 1);  // for sbatch/squeue/scancel
    return "";
  }

  void stop() {
    if (!started_) return;
    started_ = false;
    runProgram({script(), "stop", dir_.string()}, dir_.parent_path(), 60);
    ::unsetenv("SLURM_CONF");
  }

  double startSeconds() const { return start_seconds_; }

 private:
  static std::string script() {
    return std::string(DEEPLADDER_SOURCE_DIR) + "/scripts/slurm-local";
  }
  fs::path dir_;
  bool started_ = false;
  double start_seconds_ = 0;
};

// Runs (seeds 1 and 2 by default) of a 1-layer d_model 32 GPT on a small byte-level text;
// `ranks` > 1 makes each run data-parallel.
std::string ladderToml(const fs::path& dir, int64_t steps, int64_t checkpoint_every,
                       const std::string& seeds = "[1, 2]", int64_t ranks = 1) {
  const int64_t tokens = steps * 4 * 32;
  return "[ladder]\nname = \"slurm-it\"\nseeds = " + seeds +
         "\n"
         "[model]\nseq_len = 32\n"
         "[data]\nkind = \"text\"\nmax_epochs = 100\ntrain = \"" +
         (dir / "train.txt").string() + "\"\nval = \"" + (dir / "val.txt").string() +
         "\"\n"
         "[train]\nbatch_size = 4\nwarmup_steps = 2\neval_every = 10\neval_batches = 2\n"
         "checkpoint_every = " +
         std::to_string(checkpoint_every) + "\nthreads = 1\nranks = " + std::to_string(ranks) +
         "\n"
         "[sizes]\n[[sizes.list]]\nname = \"tiny\"\nd_model = 32\nn_layer = 1\nn_head = 2\n"
         "[budget]\nrule = \"tokens\"\ntokens = " +
         std::to_string(tokens) +
         "\n"
         "[arms.vanilla]\n"
         "[resources]\nbackend = \"slurm\"\nslots = 2\nretries = 2\n"
         "[resources.slurm]\ntime = \"00:10:00\"\ncpus_per_task = 1\n";
}

class SlurmEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::getuid() != 0)
      GTEST_SKIP() << "the local Slurm test needs root (slurmd runs jobs as users)";
    const std::string missing = missingSlurmPrograms();
    if (!missing.empty())
      GTEST_SKIP() << "Slurm/munge not installed (" << missing
                   << "); install munge slurmctld slurmd slurm-client (scripts/setup)";
    char pattern[] = "/tmp/deepladder-slurm-it-XXXXXX";
    dir_ = mkdtemp(pattern);
    std::string text;
    for (int i = 0; i < 400; ++i)
      text += "the quick brown fox jumps over the lazy dog " + std::to_string(i % 7) + "\n";
    std::ofstream(dir_ / "train.txt") << text;
    std::ofstream(dir_ / "val.txt") << text.substr(0, 4000);
    slurm_ = std::make_unique<LocalSlurm>(dir_ / "cluster");
    const std::string error = slurm_->start();
    ASSERT_EQ(error, "") << "the local Slurm cluster did not start";
    std::printf("[ slurm    ] private cluster up in %.2f s\n", slurm_->startSeconds());
  }
  void TearDown() override {
    slurm_.reset();  // stops the daemons even when an assertion failed
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::vector<std::string> deepladderRun() const {
    return {std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder",
            "run",
            (dir_ / "ladder.toml").string(),
            "--db",
            (dir_ / "runs.db").string(),
            "--workdir",
            (dir_ / "work").string()};
  }

  // Job ids of a run's attempts, from the files the backend writes beside its job scripts.
  static std::vector<std::string> jobIds(const std::string& run_workdir) {
    std::vector<std::string> ids;
    for (int attempt = 1; attempt < 10; ++attempt) {
      const fs::path file =
          fs::path(run_workdir) / "slurm" / ("attempt-" + std::to_string(attempt) + ".jobid");
      if (!fs::exists(file)) break;
      std::string id = readFile(file);
      ids.push_back(id.substr(0, id.find('\n')));
    }
    return ids;
  }

  std::string scontrolShowJob(const std::string& id) const {
    return runProgram({"/usr/bin/scontrol", "show", "job", id}, dir_, 30).out;
  }

  fs::path dir_;
  std::unique_ptr<LocalSlurm> slurm_;
};

}  // namespace

TEST_F(SlurmEndToEnd, TwoRunLadderFinishesAsSlurmJobsWithMetricsInTheDatabase) {
  std::ofstream(dir_ / "ladder.toml") << ladderToml(dir_, 20, 10);
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = runProgram(deepladderRun(), dir_, 300);
  const double seconds = secondsSince(t0);
  std::printf("[ slurm    ] 2-run ladder through Slurm: %.2f s\n", seconds);
  ASSERT_EQ(r.code, 0) << r.err << r.out;

  auto db = storage::Database::open((dir_ / "runs.db").string(), /*read_only=*/true);
  const auto runs = db->listRuns();
  ASSERT_EQ(runs.size(), 2u);
  std::set<std::string> all_ids;
  for (const auto& s : runs) {
    EXPECT_EQ(s.run.status, RunStatus::kFinished) << s.run.name << ": " << s.run.error;
    EXPECT_EQ(s.run.step, 20);
    EXPECT_EQ(db->readMetric(s.run.id, "train/loss").size(), 20u) << s.run.name;
    EXPECT_FALSE(db->readMetric(s.run.id, "val/loss").empty()) << s.run.name;
    const std::vector<std::string> ids = jobIds(s.run.workdir);
    ASSERT_EQ(ids.size(), 1u) << s.run.name;
    all_ids.insert(ids[0]);
    // Slurm itself knows the job: it ran this run's name and completed.
    const std::string job = scontrolShowJob(ids[0]);
    EXPECT_NE(job.find("JobName=" + s.run.name), std::string::npos) << job;
    EXPECT_NE(job.find("JobState=COMPLETED"), std::string::npos) << job;
    EXPECT_NE(r.err.find(s.run.name + " on slurm:" + ids[0]), std::string::npos) << r.err;
    EXPECT_EQ(readFile(fs::path(s.run.workdir) / "slurm" / "attempt-1.exit"), "0\n");
  }
  EXPECT_EQ(all_ids.size(), 2u);
}

TEST_F(SlurmEndToEnd, AJobKilledFromOutsideIsRetriedFromItsCheckpoint) {
  // Long enough to be caught mid-run; checkpoints every 10 steps.
  std::ofstream(dir_ / "ladder.toml") << ladderToml(dir_, 400, 10);
  std::string cancelled;
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = runProgram(deepladderRun(), dir_, 400, [&] {
    if (!cancelled.empty()) return;
    // The first run whose first attempt has written a checkpoint: scancel it, as preemption would.
    // The scheduler may not have made the work directory yet (a slow, sanitized build): no error.
    std::error_code missing;
    for (const auto& run_dir : fs::directory_iterator(dir_ / "work", missing)) {
      for (const auto& entry : fs::recursive_directory_iterator(run_dir.path(), missing)) {
        if (entry.path().filename() != "attempt-1.jsonl") continue;
        if (readFile(entry.path()).find("\"checkpoint\"") == std::string::npos) continue;
        std::string id = readFile(entry.path().parent_path() / "attempt-1.jobid");
        id = id.substr(0, id.find('\n'));
        if (id.empty()) continue;
        runProgram({"/usr/bin/scancel", id}, dir_, 30);
        cancelled = id;
        return;
      }
    }
  });
  std::printf("[ slurm    ] ladder with one job cancelled from outside: %.2f s\n",
              secondsSince(t0));
  ASSERT_FALSE(cancelled.empty()) << "no job was caught mid-run: " << r.err;
  ASSERT_EQ(r.code, 0) << r.err << r.out;

  auto db = storage::Database::open((dir_ / "runs.db").string(), /*read_only=*/true);
  int retried = 0;
  for (const auto& s : db->listRuns()) {
    EXPECT_EQ(s.run.status, RunStatus::kFinished) << s.run.name << ": " << s.run.error;
    const auto curve = db->readMetric(s.run.id, "train/loss");
    ASSERT_EQ(curve.size(), 400u) << s.run.name;  // continuous, no step twice
    for (size_t i = 0; i < curve.size(); ++i) EXPECT_EQ(curve[i].step, int64_t(i + 1));
    const std::vector<std::string> ids = jobIds(s.run.workdir);
    if (ids.size() >= 2 && ids[0] == cancelled) {
      ++retried;
      EXPECT_NE(scontrolShowJob(ids[0]).find("JobState=CANCELLED"), std::string::npos);
      EXPECT_NE(readFile(fs::path(s.run.workdir) / "slurm" / "job-2.sh").find("'--resume'"),
                std::string::npos);
    }
  }
  EXPECT_EQ(retried, 1);
  EXPECT_NE(r.err.find("slurm job " + cancelled + " was CANCELLED"), std::string::npos) << r.err;
}

TEST_F(SlurmEndToEnd, TwoRankRunIsOneJobOfTwoTasksLaunchedWithSrun) {
  std::ofstream(dir_ / "ladder.toml") << ladderToml(dir_, 20, 10, "[1]", /*ranks=*/2);
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = runProgram(deepladderRun(), dir_, 300);
  std::printf("[ slurm    ] 2-rank run through Slurm + srun: %.2f s\n", secondsSince(t0));
  ASSERT_EQ(r.code, 0) << r.err << r.out;

  auto db = storage::Database::open((dir_ / "runs.db").string(), /*read_only=*/true);
  const auto runs = db->listRuns();
  ASSERT_EQ(runs.size(), 1u);
  const auto& run = runs[0].run;
  EXPECT_EQ(run.status, RunStatus::kFinished) << run.error;
  EXPECT_EQ(db->readMetric(run.id, "train/loss").size(), 20u);
  // Rank 0 reported the world it trained in; only it spoke the protocol (no duplicate lines).
  EXPECT_NE(run.device.find("2 ranks (gloo)"), std::string::npos) << run.device;
  const std::string protocol = readFile(fs::path(run.workdir) / "slurm" / "attempt-1.jsonl");
  size_t hellos = 0;
  for (size_t at = protocol.find("\"hello\""); at != std::string::npos;
       at = protocol.find("\"hello\"", at + 1))
    ++hellos;
  EXPECT_EQ(hellos, 1u) << protocol;
  const std::vector<std::string> ids = jobIds(run.workdir);
  ASSERT_EQ(ids.size(), 1u);
  const std::string job = scontrolShowJob(ids[0]);
  EXPECT_NE(job.find("NumTasks=2"), std::string::npos) << job;
  EXPECT_NE(job.find("JobState=COMPLETED"), std::string::npos) << job;
  const std::string script = readFile(fs::path(run.workdir) / "slurm" / "job-1.sh");
  EXPECT_NE(script.find("'srun' '--ntasks=2'"), std::string::npos) << script;
}
