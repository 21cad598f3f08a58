// Slurm backend: sbatch jobs whose protocol output is a growing file (see slurm_backend.h).
#include "core/scheduler/slurm_backend.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/clock_seconds.h"
#include "core/protocol.h"
#include "core/scheduler/command_runner.h"
#include "core/scheduler/sbatch_script.h"

namespace deepladder::scheduler {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// PENDING and the like: the job has not started (or was put back in the queue).
bool waitingInQueue(const std::string& state) {
  return state == "PENDING" || state == "CONFIGURING" || state == "SUSPENDED" ||
         state == "REQUEUED" || state == "REQUEUE_HOLD" || state == "REQUEUE_FED";
}

// --- one attempt that could not even be submitted ----------------------------------------------

class FailedSubmission : public Execution {
 public:
  explicit FailedSubmission(std::string message) : message_(std::move(message)) {}
  bool pollOutput(const std::function<void(const std::string&)>& on_line) override {
    if (delivered_) return false;
    delivered_ = true;
    on_line(protocol::encode(protocol::Error{message_}));
    return false;
  }
  std::optional<ExecutionEnd> finished() override {
    if (!delivered_) return std::nullopt;
    ExecutionEnd end;
    end.exit.exited = true;
    end.exit.code = 1;
    return end;
  }
  void terminate() override {}
  void kill() override {}
  std::string where() const override { return "slurm:(not submitted)"; }

 private:
  std::string message_;
  bool delivered_ = false;
};

// --- a submitted job ---------------------------------------------------------------------------

class SlurmExecution : public Execution {
 public:
  SlurmExecution(std::string job_id, JobFiles files, SlurmCommands commands, SlurmTiming timing)
      : job_id_(std::move(job_id)),
        files_(std::move(files)),
        commands_(std::move(commands)),
        timing_(timing) {}

  bool pollOutput(const std::function<void(const std::string&)>& on_line) override {
    if (end_) return false;
    readNewLines(on_line);
    const double now = steadySeconds();
    const bool exit_file = fs::exists(files_.exit_code);
    // The exit file means the job is ending: look at its state now rather than in a second.
    if (!job_ended_ && (now - last_state_check_ >= timing_.state_poll_s ||
                        (exit_file && now - last_state_check_ >= 0.1))) {
      checkState(now);
      // Queue time is not a hung worker: the scheduler's heartbeat counts any line, and sinks
      // ignore lines that are not protocol messages, so say (once a check) that it waits.
      if (waitingInQueue(state_)) on_line("# slurm job " + job_id_ + " " + state_);
    }
    if (term_sent_at_ > 0 && !kill_sent_ && !job_ended_ &&
        now - term_sent_at_ > timing_.kill_after_term_s)
      kill();

    bool done = false;
    if (job_ended_ && exit_file) done = true;
    if (job_ended_ && !exit_file && now - ended_at_ >= timing_.exit_file_grace_s) done = true;
    if (!job_ended_ && unreachable_since_ > 0 &&
        now - unreachable_since_ >= timing_.unreachable_s) {
      done = true;
      state_ = "UNKNOWN (squeue failing for " + std::to_string(int(timing_.unreachable_s)) +
               " s: " + squeue_error_ + ")";
    }
    if (!done) return true;

    readNewLines(on_line);  // everything the worker wrote before it ended
    std::string exit_text;
    const bool has_exit = readExitFile(&exit_text);
    const SlurmJobEnd job_end = slurmJobEnd(job_id_, exit_text, has_exit, state_);
    if (!job_end.description.empty())
      on_line(protocol::encode(protocol::Error{job_end.description}));
    end_ = ExecutionEnd{killed_by_us_, job_end.exit};
    return false;
  }

  std::optional<ExecutionEnd> finished() override { return end_; }

  void terminate() override {
    killed_by_us_ = true;
    if (term_sent_at_ > 0 || end_) return;  // the scheduler repeats this every loop
    term_sent_at_ = steadySeconds();
    runCommand({commands_.scancel, "--full", "--signal=TERM", job_id_}, 30);
  }

  void kill() override {
    killed_by_us_ = true;
    if (kill_sent_ || end_) return;
    kill_sent_ = true;
    if (term_sent_at_ <= 0) term_sent_at_ = steadySeconds();
    runCommand({commands_.scancel, job_id_}, 30);
  }

  std::string where() const override { return "slurm:" + job_id_; }

 private:
  void readNewLines(const std::function<void(const std::string&)>& on_line) {
    std::ifstream in(files_.protocol, std::ios::binary);
    if (!in) return;  // not created yet (job pending)
    in.seekg(static_cast<std::streamoff>(offset_));
    char buffer[65536];
    while (in) {
      in.read(buffer, sizeof buffer);
      const std::streamsize n = in.gcount();
      if (n <= 0) break;
      offset_ += static_cast<uint64_t>(n);
      partial_.append(buffer, static_cast<size_t>(n));
    }
    size_t start = 0;
    for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string line = partial_.substr(start, nl - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) on_line(line);
    }
    partial_.erase(0, start);
  }

  bool readExitFile(std::string* text) const {
    std::ifstream in(files_.exit_code);
    if (!in) return false;
    std::stringstream ss;
    ss << in.rdbuf();
    *text = ss.str();
    return true;
  }

  // One squeue: the job's state, or gone (no longer listed: finished and purged).
  void checkState(double now) {
    last_state_check_ = now;
    const CommandResult r =
        runCommand({commands_.squeue, "-h", "-j", job_id_, "--states=all", "-o", "%T"}, 30);
    const std::string out = trim(r.output);
    const bool unknown_job = out.find("Invalid job id") != std::string::npos;
    if (r.status == 0 || unknown_job) {
      unreachable_since_ = 0;
      if (r.status == 0 && !out.empty()) state_ = out.substr(0, out.find('\n'));
      // COMPLETING hides how it ended (CANCELLED, TIMEOUT, ...): wait for the final state, but
      // only for the grace period once the worker has recorded its exit status.
      if (state_ == "COMPLETING" && completing_since_ <= 0) completing_since_ = now;
      const bool completing_long = state_ == "COMPLETING" && fs::exists(files_.exit_code) &&
                                   now - completing_since_ >= timing_.exit_file_grace_s;
      if (out.empty() || unknown_job || slurmStateIsFinal(state_) || completing_long) {
        job_ended_ = true;
        ended_at_ = now;
      }
      return;
    }
    squeue_error_ = out.empty() ? "no output" : out.substr(0, 200);
    if (unreachable_since_ <= 0) unreachable_since_ = now;
  }

  std::string job_id_;
  JobFiles files_;
  SlurmCommands commands_;
  SlurmTiming timing_;
  uint64_t offset_ = 0;
  std::string partial_;
  std::string state_;  // last state squeue reported ("" = never seen)
  std::string squeue_error_;
  double last_state_check_ = 0;
  double ended_at_ = 0;
  double completing_since_ = 0;
  double unreachable_since_ = 0;
  double term_sent_at_ = 0;
  bool job_ended_ = false;
  bool kill_sent_ = false;
  bool killed_by_us_ = false;
  std::optional<ExecutionEnd> end_;
};

}  // namespace

bool slurmStateIsFinal(const std::string& state) {
  static const std::set<std::string> kFinal = {
      "BOOT_FAIL",     "CANCELLED", "COMPLETED", "DEADLINE",     "FAILED", "NODE_FAIL",
      "OUT_OF_MEMORY", "PREEMPTED", "TIMEOUT",   "SPECIAL_EXIT", "REVOKED"};
  return kFinal.count(state) > 0;
}

SlurmJobEnd slurmJobEnd(const std::string& job_id, const std::string& exit_file_text,
                        bool exit_file_exists, const std::string& slurm_state) {
  SlurmJobEnd end;
  if (exit_file_exists) {
    const std::string text = trim(exit_file_text);
    char* rest = nullptr;
    const long code = std::strtol(text.c_str(), &rest, 10);
    if (!text.empty() && rest && *rest == '\0' && code >= 0 && code < 256) {
      if (code > 128) {
        end.exit.signal = static_cast<int>(code - 128);  // sh reports a signalled child as 128+N
      } else {
        end.exit.exited = true;
        end.exit.code = static_cast<int>(code);
      }
      // The worker ended on a signal from Slurm (scancel from outside, preemption, time limit):
      // say so, or the message would only read "killed by signal 15".
      if (slurm_state != "COMPLETED" && slurm_state != "FAILED" && slurmStateIsFinal(slurm_state))
        end.description = "slurm job " + job_id + " was " + slurm_state;
      return end;
    }
    end.exit.signal = SIGKILL;
    end.description =
        "slurm job " + job_id + ": unreadable exit status \"" + text.substr(0, 40) + "\"";
    return end;
  }
  end.exit.signal = SIGKILL;
  end.description = "slurm job " + job_id + " ended" +
                    (slurm_state.empty() ? "" : " in state " + slurm_state) +
                    " without the worker's exit status (killed, preempted, timed out or its node "
                    "failed); see its sbatch log";
  return end;
}

// A scheduler that was killed leaves its jobs running; `resume` then starts the run again from
// its checkpoint, so the old job must not write into the same directory any more.
void SlurmBackend::cancelLeftoverJob(const JobFiles& previous) {
  std::ifstream in(previous.job_id);
  std::string id;
  if (!(in >> id) || id.find_first_not_of("0123456789_") != std::string::npos) return;
  const auto state = [&] {
    const CommandResult r =
        runCommand({commands_.squeue, "-h", "-j", id, "--states=all", "-o", "%T"}, 30);
    const std::string out = trim(r.output);
    return r.status == 0 ? out.substr(0, out.find('\n')) : std::string();
  };
  std::string s = state();
  if (s.empty() || slurmStateIsFinal(s)) return;
  runCommand({commands_.scancel, id}, 30);
  for (int i = 0; i < 120; ++i) {  // until Slurm has stopped it (KillWait), at most a minute
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    s = state();
    if (s.empty() || slurmStateIsFinal(s)) return;
  }
}

SlurmBackend::SlurmBackend(const ladder::Resources& resources, SlurmCommands commands,
                           SlurmTiming timing)
    : resources_(resources), commands_(std::move(commands)), timing_(timing) {}

std::vector<Slot> SlurmBackend::slots() {
  const int64_t count = resources_.slots > 0 ? resources_.slots : 4;
  std::vector<Slot> slots;
  for (int64_t i = 0; i < count; ++i) {
    Slot slot;
    slot.name = "slurm" + std::to_string(i);
    slot.threads = resources_.threads_per_slot;
    slots.push_back(slot);
  }
  return slots;
}

std::unique_ptr<Execution> SlurmBackend::launch(const PendingRun& run,
                                                const std::vector<Slot>& slots,
                                                const std::string& worker_path) {
  const Slot& slot = slots.at(0);
  PendingRun job = run;
  job.workdir = fs::absolute(run.workdir).string();  // the job starts in another directory
  const std::string worker =
      worker_path.find('/') == std::string::npos ? worker_path : fs::absolute(worker_path).string();
  const JobFiles files = jobFiles(job, run.attempt + 1, resources_.slurm);
  if (run.attempt > 0) cancelLeftoverJob(jobFiles(job, run.attempt, resources_.slurm));
  std::vector<std::string> sbatch;
  try {
    std::vector<std::string> command = workerArguments(worker, job, slot.threads);
    std::map<std::string, std::string> env = slot.env;
    env.merge(workerEnvironment(/*shares_cores=*/true));  // a node may hold other jobs
    if (job.ranks > 1) {
      const std::vector<std::string> launcher = rankLauncher(commands_.srun, job, resources_.slurm);
      command.insert(command.begin(), launcher.begin(), launcher.end());
      const auto [name, value] = peerTimeoutVariable(resources_.peer_timeout_s);
      env[name] = value;
    }
    writeJobScript(files, jobScript(command, env, files));
    for (const auto& stale : {files.protocol, files.exit_code, files.exit_code + ".tmp"})
      fs::remove(stale);
    sbatch = sbatchArguments(commands_.sbatch, job, resources_.slurm, files);
  } catch (const std::exception& e) {
    return std::make_unique<FailedSubmission>(std::string("cannot prepare the Slurm job: ") +
                                              e.what());
  }
  const CommandResult r = runCommand(sbatch, 120);
  // --parsable prints "ID" or "ID;cluster" (warnings, if any, come on lines before it).
  std::string last_line = trim(r.output);
  if (const size_t nl = last_line.rfind('\n'); nl != std::string::npos)
    last_line = last_line.substr(nl + 1);
  const std::string job_id = last_line.substr(0, last_line.find(';'));
  const bool numeric =
      !job_id.empty() && job_id.find_first_not_of("0123456789_") == std::string::npos;
  if (r.status != 0 || !numeric)
    return std::make_unique<FailedSubmission>(
        "sbatch failed (" +
        (r.status >= 0 ? "exit status " + std::to_string(r.status) : "no exit status") +
        "): " + trim(r.output).substr(0, 500) + " [command: " + joinedCommand(sbatch) + "]");
  std::ofstream(files.dir + "/attempt-" + std::to_string(run.attempt + 1) + ".jobid")
      << job_id << "\n";
  return std::make_unique<SlurmExecution>(job_id, files, commands_, timing_);
}

std::string SlurmBackend::describe() const {
  std::string out = "slurm, up to " + std::to_string(resources_.slots > 0 ? resources_.slots : 4) +
                    " job(s) in flight";
  if (!resources_.slurm.partition.empty()) out += ", partition " + resources_.slurm.partition;
  out += ", " + std::to_string(resources_.slurm.cpus_per_task) + " CPU(s)";
  if (resources_.slurm.gpus_per_task > 0)
    out += " + " + std::to_string(resources_.slurm.gpus_per_task) + " GPU(s)";
  out += " per job";
  if (!resources_.slurm.time_limit.empty()) out += ", time limit " + resources_.slurm.time_limit;
  return out;
}

}  // namespace deepladder::scheduler
