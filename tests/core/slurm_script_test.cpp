// The Slurm backend without Slurm: job scripts and sbatch argv for hostile run names and paths
// (quotes, $(...), backticks, semicolons, newlines, carriage returns, '%'), run with /bin/sh
// against a fake worker that records its argv; the outcome mapping; and SlurmBackend driven by
// fake sbatch/squeue/scancel scripts (a job that finishes, one Slurm loses, a failed sbatch).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/protocol.h"
#include "core/scheduler/sbatch_script.h"
#include "core/scheduler/slurm_backend.h"

namespace fs = std::filesystem;
using namespace deepladder;
using namespace deepladder::scheduler;

namespace {

// Every kind of text that would run a command or split a word if it reached the shell unquoted.
// Each injection would create a file named "pwned*" in the current directory.
const std::string kHostile =
    "we ird $(touch pwned1) `touch pwned2`; touch pwned3 | touch pwned4 & 'q' \"dq\" \\ "
    "$HOME ${PATH} *\n#SBATCH --partition=evil\ntouch pwned5\r\nend %j %x";

// Writes each argument followed by a NUL to stdout, its stderr a marker, exits with $DL_EXIT.
const char* kArgvWorker = R"SH(#!/bin/sh
for a in "$@"; do printf '%s\0' "$a"; done
echo "worker stderr" >&2
printf '%s' "$DL_ENV" > "$DL_ENV_OUT"
case "${DL_EXIT-0}" in
  kill9) kill -9 $$;;
  sleep) trap 'echo got-term >&2; exit 143' TERM; sleep 30 & wait $!;;
  *) exit "${DL_EXIT-0}";;
esac
)SH";

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeExecutable(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  ::chmod(path.c_str(), 0755);
}

std::vector<std::string> splitNul(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t z; (z = text.find('\0', start)) != std::string::npos; start = z + 1)
    out.push_back(text.substr(start, z - start));
  return out;
}

std::vector<fs::path> pwnedFiles(const fs::path& root) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.path().filename().string().rfind("pwned", 0) == 0) found.push_back(entry.path());
  return found;
}

class SlurmScriptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-slurm-XXXXXX";
    dir_ = mkdtemp(pattern);
    hostile_dir_ = dir_ / kHostile;
    fs::create_directories(hostile_dir_ / "run dir");
    worker_ = (hostile_dir_ / ("worker " + kHostile)).string();
    writeExecutable(worker_, kArgvWorker);
    run_.id = 7;
    run_.name = "arm-" + kHostile;
    run_.workdir = (hostile_dir_ / "run dir").string();
    run_.attempt = 1;  // the second attempt: --resume
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the script with /bin/sh from dir_ (where an injection would drop its files).
  int runScript(const std::string& script_path, const std::string& env = "") {
    const std::string command = "cd '" + dir_.string() + "' && " + env + " /bin/sh " +
                                shellQuote(script_path) + " >/dev/null 2>&1";
    return std::system(command.c_str());
  }

  fs::path dir_, hostile_dir_;
  std::string worker_;
  PendingRun run_;
};

}  // namespace

TEST_F(SlurmScriptTest, ShellQuoteSurvivesEveryHostileByte) {
  std::string all_bytes;
  for (int c = 1; c < 256; ++c) all_bytes += static_cast<char>(c);
  for (const std::string& value : {kHostile, all_bytes, std::string(""), std::string("'")}) {
    const fs::path script = dir_ / "quote.sh";
    std::ofstream(script, std::ios::binary) << "printf '%s' " << shellQuote(value) << " > "
                                            << shellQuote((dir_ / "out").string()) << "\n";
    ASSERT_EQ(runScript(script.string()), 0);
    EXPECT_EQ(readFile(dir_ / "out"), value);
  }
  EXPECT_TRUE(pwnedFiles(dir_).empty());
}

TEST_F(SlurmScriptTest, JobScriptRunsExactlyTheWorkerArgvWithNoSideEffects) {
  Slot slot;
  slot.threads = 3;
  slot.env["DL_ENV"] = kHostile;
  slot.env["DL_ENV_OUT"] = (dir_ / "env-seen").string();
  const std::vector<std::string> argv = workerArguments(worker_, run_, slot.threads);
  const JobFiles files = jobFiles(run_, run_.attempt + 1, ladder::SlurmOptions{});
  EXPECT_EQ(files.dir, run_.workdir + "/slurm");
  EXPECT_EQ(files.protocol, run_.workdir + "/slurm/attempt-2.jsonl");
  writeJobScript(files, jobScript(argv, slot.env, files));

  EXPECT_EQ(runScript(files.script), 0);
  const std::vector<std::string> seen = splitNul(readFile(files.protocol));
  const std::vector<std::string> expected(argv.begin() + 1, argv.end());
  EXPECT_EQ(seen, expected);
  EXPECT_NE(std::find(seen.begin(), seen.end(), "--resume"), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), "--threads"), seen.end());
  EXPECT_EQ(readFile(dir_ / "env-seen"), kHostile);
  EXPECT_EQ(readFile(files.exit_code), "0\n");
  EXPECT_FALSE(fs::exists(files.exit_code + ".tmp"));
  EXPECT_EQ(readFile(files.worker_log), "worker stderr\n");
  EXPECT_TRUE(pwnedFiles(dir_).empty());
}

TEST_F(SlurmScriptTest, NoTextCanBecomeAnSbatchDirective) {
  // sbatch reads #SBATCH lines up to the first command; that command must be fixed text.
  const JobFiles files = jobFiles(run_, 1, ladder::SlurmOptions{});
  const std::string script = jobScript(workerArguments(worker_, run_, 0), {{"X", kHostile}}, files);
  std::istringstream lines(script);
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(line, "#!/bin/sh");
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] == '#') {
      EXPECT_NE(line.rfind("#SBATCH", 0), 0u) << line;
      continue;
    }
    EXPECT_EQ(line.rfind("trap ", 0), 0u) << "first command: " << line;
    break;
  }
  EXPECT_EQ(script.find("\r"), std::string::npos) << "sbatch rejects scripts with CR LF";
  EXPECT_THROW(jobScript({"w"}, {{"BAD NAME", "x"}}, files), std::invalid_argument);
}

TEST_F(SlurmScriptTest, ExitStatusAndSignalsAreRecorded) {
  const JobFiles files = jobFiles(run_, 3, ladder::SlurmOptions{});
  writeJobScript(files, jobScript({worker_}, {{"DL_ENV_OUT", "/dev/null"}}, files));
  EXPECT_NE(runScript(files.script, "DL_EXIT=3"), 0);
  EXPECT_EQ(readFile(files.exit_code), "3\n");
  SlurmJobEnd end = slurmJobEnd("12", readFile(files.exit_code), true, "FAILED");
  EXPECT_TRUE(end.exit.exited);
  EXPECT_EQ(end.exit.code, 3);
  EXPECT_EQ(end.description, "");

  runScript(files.script, "DL_EXIT=kill9");
  EXPECT_EQ(readFile(files.exit_code), "137\n");
  end = slurmJobEnd("12", readFile(files.exit_code), true, "FAILED");
  EXPECT_FALSE(end.exit.exited);
  EXPECT_EQ(end.exit.signal, 9);
}

TEST_F(SlurmScriptTest, TermReachesTheWorkerAndTheStatusIsStillWritten) {
  // What scancel --full --signal=TERM does: TERM to the script and the worker.
  const JobFiles files = jobFiles(run_, 4, ladder::SlurmOptions{});
  writeJobScript(files,
                 jobScript({worker_}, {{"DL_ENV_OUT", "/dev/null"}, {"DL_EXIT", "sleep"}}, files));
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execl("/bin/sh", "sh", files.script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  for (int i = 0; i < 200 && !fs::exists(files.protocol); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(-pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_EQ(readFile(files.exit_code), "143\n");
  EXPECT_NE(readFile(files.worker_log).find("got-term"), std::string::npos);
}

TEST(SlurmOutcome, MissingExitFileIsAKillNamingTheState) {
  const SlurmJobEnd end = slurmJobEnd("42", "", false, "TIMEOUT");
  EXPECT_FALSE(end.exit.exited);
  EXPECT_EQ(end.exit.signal, 9);
  EXPECT_NE(end.description.find("slurm job 42"), std::string::npos);
  EXPECT_NE(end.description.find("TIMEOUT"), std::string::npos);
  EXPECT_TRUE(slurmJobEnd("42", "garbage", true, "").exit.signal == 9);
  const SlurmJobEnd preempted = slurmJobEnd("43", "143\n", true, "PREEMPTED");
  EXPECT_EQ(preempted.exit.signal, 15);
  EXPECT_EQ(preempted.description, "slurm job 43 was PREEMPTED");
  EXPECT_TRUE(slurmStateIsFinal("PREEMPTED"));
  EXPECT_TRUE(slurmStateIsFinal("NODE_FAIL"));
  EXPECT_FALSE(slurmStateIsFinal("RUNNING"));
  EXPECT_FALSE(slurmStateIsFinal("PENDING"));
}

TEST_F(SlurmScriptTest, SbatchArgumentsCarryTheOptionsVerbatim) {
  ladder::SlurmOptions options;
  options.partition = "gpu";
  options.time_limit = "01:30:00";
  options.cpus_per_task = 8;
  options.gpus_per_task = 1;
  options.extra = {"--account=proj; rm -rf /", "--qos=high"};
  const JobFiles files = jobFiles(run_, 2, options);
  const std::vector<std::string> argv = sbatchArguments("/usr/bin/sbatch", run_, options, files);
  std::string sanitized_name = "arm-" + kHostile;
  for (char& c : sanitized_name)
    if (c == '\n' || c == '\r') c = '_';
  std::string output = files.sbatch_log;
  std::string doubled;
  for (char c : output) doubled += c == '%' ? std::string("%%") : std::string(1, c);
  const std::vector<std::string> expected = {"/usr/bin/sbatch",
                                             "--parsable",
                                             "--job-name=" + sanitized_name,
                                             "--output=" + doubled,
                                             "--chdir=" + run_.workdir,
                                             "--no-requeue",
                                             "--time=01:30:00",
                                             "--partition=gpu",
                                             "--cpus-per-task=8",
                                             "--gpus-per-task=1",
                                             "--account=proj; rm -rf /",
                                             "--qos=high",
                                             files.script};
  EXPECT_EQ(argv, expected);

  ladder::SlurmOptions plain;  // no partition, no GPUs: those options are left out
  plain.time_limit = "";
  const std::vector<std::string> short_argv =
      sbatchArguments("sbatch", run_, plain, jobFiles(run_, 1, plain));
  for (const auto& a : short_argv) {
    EXPECT_NE(a.rfind("--partition", 0), 0u);
    EXPECT_NE(a.rfind("--gpus-per-task", 0), 0u);
    EXPECT_NE(a.rfind("--time", 0), 0u);
  }
  options.workdir = (dir_ / "shared").string();  // job files go to the shared directory
  EXPECT_EQ(jobFiles(run_, 2, options).dir, (dir_ / "shared" / "run-7").string());
  EXPECT_EQ(jobFiles(run_, 2, options).worker_log, run_.workdir + "/worker.log");
}

TEST_F(SlurmScriptTest, DataParallelRunIsOneJobOfOneTaskPerRankStartedWithSrun) {
  ladder::SlurmOptions options;
  options.cpus_per_task = 4;
  options.gpus_per_task = 1;
  PendingRun run = run_;
  run.ranks = 4;
  run.gpus_per_rank = 2;  // the run's own choice wins over slurm.gpus_per_task
  const std::vector<std::string> argv =
      sbatchArguments("sbatch", run, options, jobFiles(run, 1, options));
  auto has = [&](const std::vector<std::string>& v, const std::string& a) {
    return std::find(v.begin(), v.end(), a) != v.end();
  };
  EXPECT_TRUE(has(argv, "--ntasks=4"));
  EXPECT_TRUE(has(argv, "--gpus-per-task=2"));
  EXPECT_EQ(rankLauncher("srun", run, options),
            (std::vector<std::string>{"srun", "--ntasks=4", "--cpus-per-task=4",
                                      "--kill-on-bad-exit=1", "--gpus-per-task=2"}));
  run.gpus_per_rank = 0;  // falls back to the ladder's slurm.gpus_per_task
  EXPECT_EQ(gpusPerTask(run, options), 1);
  run.ranks = 1;  // a single rank: no srun, no --ntasks
  EXPECT_TRUE(rankLauncher("srun", run, options).empty());
  EXPECT_FALSE(
      has(sbatchArguments("sbatch", run, options, jobFiles(run, 1, options)), "--ntasks=1"));
}

// --- SlurmBackend against fake Slurm commands ------------------------------------------------

namespace {

// Fake sbatch: a job id from a counter; runs the script in the background unless $state/lose
// exists (a job Slurm loses); fails when $state/refuse exists. Fake squeue: RUNNING while the
// job runs, COMPLETED after, "Invalid job id" for unknown jobs. Fake scancel: records its argv.
std::string fakeSbatch(const fs::path& state) {
  return "#!/bin/sh\nstate='" + state.string() + R"('
for a in "$@"; do script="$a"; printf '%s\n' "$a" >> "$state/sbatch-args"; done
if [ -e "$state/refuse" ]; then echo "sbatch: error: invalid partition specified: evil" >&2; exit 1; fi
n=$(( $(cat "$state/counter" 2>/dev/null || echo 41) + 1 )); echo $n > "$state/counter"
if [ ! -e "$state/lose" ]; then
  touch "$state/job-$n.running"
  ( /bin/sh "$script"; rm "$state/job-$n.running"; touch "$state/job-$n.done" ) >/dev/null 2>&1 &
fi
echo "$n"
)";
}

std::string fakeSqueue(const fs::path& state) {
  return "#!/bin/sh\nstate='" + state.string() + R"('
id="$3"
if [ -e "$state/job-$id.running" ]; then echo RUNNING
elif [ -e "$state/job-$id.done" ]; then echo COMPLETED
else echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1; fi
)";
}

const char* kProtocolWorker = R"SH(#!/bin/sh
echo '{"type":"hello","run_id":"7"}'
sleep 0.3
echo '{"type":"metric","step":1,"values":{"train/loss":3}}'
echo '{"type":"done","status":"finished","final_loss":3.0}'
)SH";

struct Drained {
  std::vector<std::string> lines;
  std::optional<ExecutionEnd> end;
};

Drained drain(Execution& execution, double timeout_s = 20) {
  Drained out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    execution.pollOutput([&](const std::string& line) { out.lines.push_back(line); });
    if ((out.end = execution.finished())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return out;
}

}  // namespace

class SlurmBackendFakeTest : public SlurmScriptTest {
 protected:
  void SetUp() override {
    SlurmScriptTest::SetUp();
    state_ = dir_ / "fake-slurm";
    fs::create_directories(state_);
    commands_.sbatch = (state_ / "sbatch").string();
    commands_.squeue = (state_ / "squeue").string();
    commands_.scancel = "/bin/true";
    writeExecutable(commands_.sbatch, fakeSbatch(state_));
    writeExecutable(commands_.squeue, fakeSqueue(state_));
    writeExecutable(worker_, kProtocolWorker);
    timing_.state_poll_s = 0.05;
    timing_.exit_file_grace_s = 0.3;
    resources_.backend = "slurm";
  }
  fs::path state_;
  SlurmCommands commands_;
  SlurmTiming timing_;
  ladder::Resources resources_;
};

TEST_F(SlurmBackendFakeTest, AJobThatFinishesDeliversEveryLineThenItsExitStatus) {
  SlurmBackend backend(resources_, commands_, timing_);
  const std::vector<Slot> slots = backend.slots();
  ASSERT_EQ(slots.size(), 4u);  // slots = 0 -> 4 jobs in flight
  EXPECT_EQ(slots[3].name, "slurm3");
  auto execution = backend.launch(run_, {slots[0]}, worker_);
  EXPECT_EQ(execution->where(), "slurm:42");
  const Drained d = drain(*execution);
  ASSERT_TRUE(d.end);
  EXPECT_TRUE(d.end->exit.exited);
  EXPECT_EQ(d.end->exit.code, 0);
  EXPECT_FALSE(d.end->killed_by_us);
  std::vector<std::string> protocol_lines;
  for (const auto& l : d.lines)
    if (l[0] == '{') protocol_lines.push_back(l);
  ASSERT_EQ(protocol_lines.size(), 3u);
  EXPECT_NE(protocol_lines[2].find("\"done\""), std::string::npos);
  EXPECT_EQ(readFile(run_.workdir + "/slurm/attempt-2.jobid"), "42\n");
}

TEST_F(SlurmBackendFakeTest, AJobSlurmLosesEndsAsAKillWithItsDescription) {
  std::ofstream(state_ / "lose") << "";
  SlurmBackend backend(resources_, commands_, timing_);
  auto execution = backend.launch(run_, {backend.slots()[0]}, worker_);
  const Drained d = drain(*execution);
  ASSERT_TRUE(d.end);
  EXPECT_FALSE(d.end->exit.exited);
  EXPECT_EQ(d.end->exit.signal, 9);
  ASSERT_FALSE(d.lines.empty());
  auto message = protocol::decode(d.lines.back());
  ASSERT_TRUE(message);
  const auto* error = std::get_if<protocol::Error>(&*message);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(error->message.find("slurm job 42"), std::string::npos);
}

TEST_F(SlurmBackendFakeTest, AFailedSbatchIsAFailedAttemptWithSbatchsMessage) {
  std::ofstream(state_ / "refuse") << "";
  SlurmBackend backend(resources_, commands_, timing_);
  auto execution = backend.launch(run_, {backend.slots()[0]}, worker_);
  const Drained d = drain(*execution, 5);
  ASSERT_TRUE(d.end);
  EXPECT_TRUE(d.end->exit.exited);
  EXPECT_EQ(d.end->exit.code, 1);
  ASSERT_EQ(d.lines.size(), 1u);
  EXPECT_NE(d.lines[0].find("invalid partition specified"), std::string::npos);
}
