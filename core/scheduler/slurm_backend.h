// The Slurm backend: each attempt of a run is an sbatch job running the same deepladder-worker,
// its protocol output going to a file in a shared directory. The scheduler reads that file as
// it grows, tracks the job with squeue (sacct is never needed: no accounting daemon required),
// and retries a job that died without an exit status (killed, preempted, timed out, node lost)
// from the run's last checkpoint, exactly like a crashed local worker.
//
// Slots are places in the Slurm queue ("slurm0".."slurmN-1"): at most N jobs in flight. A
// data-parallel run (train.ranks = P) is one job of P tasks (sbatch --ntasks=P, each with its
// GPUs) whose script starts the ranks with srun; the workers find each other from SLURM_PROCID /
// SLURM_NTASKS / SLURM_LOCALID, and srun --kill-on-bad-exit stops the job when a rank fails.
// Slurm commands run with fork/exec and an argv (never through a shell).
#pragma once

#include <string>
#include <vector>

#include "core/ladder/ladder_spec.h"
#include "core/scheduler/backend.h"
#include "core/scheduler/sbatch_script.h"

namespace deepladder::scheduler {

// The Slurm client programs (names looked up in PATH, or paths); tests substitute fakes.
struct SlurmCommands {
  std::string sbatch = "sbatch";
  std::string squeue = "squeue";
  std::string scancel = "scancel";
  std::string srun = "srun";  // inside the job: starts the ranks of a data-parallel run
};

struct SlurmTiming {
  double state_poll_s = 1.0;       // at most one squeue per job per this many seconds
  double exit_file_grace_s = 5.0;  // job gone but no exit file yet: wait this long for it
  double kill_after_term_s = 30;   // terminate(): scancel outright if still running after this
  double unreachable_s = 300;      // squeue failing this long: give the job up as lost
};

// What became of a job, for the outcome (pure; tested on its own).
//   exit file "N"      -> exited with N (N > 128: killed by signal N - 128, as sh reports it)
//                         described as "slurm job ID was STATE" when Slurm ended it (CANCELLED,
//                         PREEMPTED, TIMEOUT, ...)
//   no exit file       -> killed by signal 9, `description` names the Slurm state
struct SlurmJobEnd {
  ProcessExit exit;
  std::string description;  // "" when the worker reported its own exit status
};
SlurmJobEnd slurmJobEnd(const std::string& job_id, const std::string& exit_file_text,
                        bool exit_file_exists, const std::string& slurm_state);

// True for squeue states after which the job runs no more (COMPLETED, FAILED, TIMEOUT, ...).
bool slurmStateIsFinal(const std::string& state);

class SlurmBackend : public Backend {
 public:
  explicit SlurmBackend(const ladder::Resources& resources, SlurmCommands commands = {},
                        SlurmTiming timing = {});
  std::vector<Slot> slots() override;
  // Writes the job script and submits it. When sbatch fails, the Execution ends at once as a
  // failed attempt carrying sbatch's message (the scheduler retries it; the ladder goes on).
  std::unique_ptr<Execution> launch(const PendingRun& run, const std::vector<Slot>& slots,
                                    const std::string& worker_path) override;
  std::string describe() const override;

 private:
  void cancelLeftoverJob(const JobFiles& previous);
  ladder::Resources resources_;
  SlurmCommands commands_;
  SlurmTiming timing_;
};

}  // namespace deepladder::scheduler
