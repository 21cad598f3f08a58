// Slurm job scripts and sbatch command lines for one attempt of a run. Pure functions (no I/O
// except writeJobScript), so the quoting can be tested on its own.
//
// Safety: every value that reaches the shell is single-quoted by shellQuote (a carriage return,
// which sbatch rejects in scripts, is produced by printf instead of appearing literally). The
// script has no #SBATCH lines and its first command is fixed text, so nothing in a run name or
// path can become a Slurm directive. Options go to sbatch as separate argv entries (executed
// without a shell), with '%' doubled in --output so Slurm's filename patterns stay literal.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/ladder/ladder_spec.h"
#include "core/scheduler/run_store.h"

namespace deepladder::scheduler {

// The files of one attempt, all under `dir` (<run workdir>/slurm, or <slurm.workdir>/run-<id>).
struct JobFiles {
  std::string dir;
  std::string script;      // job-<attempt>.sh
  std::string protocol;    // attempt-<attempt>.jsonl: the worker's stdout (protocol lines)
  std::string exit_code;   // attempt-<attempt>.exit: the worker's exit status, written last
  std::string worker_log;  // <run workdir>/worker.log: the worker's stderr (appended)
  std::string sbatch_log;  // sbatch-<attempt>.log: Slurm's own output for the job
  std::string job_id;      // attempt-<attempt>.jobid: the Slurm job id, once submitted
};

// `attempt` counts from 1 (the attempt about to start).
JobFiles jobFiles(const PendingRun& run, int64_t attempt, const ladder::SlurmOptions& options);

// 'text' for POSIX sh: safe for any bytes (quotes, $, `, ;, newlines, carriage returns).
std::string shellQuote(const std::string& text);

// The job script: runs `worker_argv` with `env` set, stdout to the protocol file, stderr
// appended to the worker log, then writes the exit status to the exit file (atomically) and
// exits with it. A SIGTERM from scancel reaches the worker; the script waits for it and still
// records its status. Throws std::invalid_argument for an env name that is not an identifier.
std::string jobScript(const std::vector<std::string>& worker_argv,
                      const std::map<std::string, std::string>& env, const JobFiles& files);

// The job name Slurm shows: the run name with control characters replaced by '_'.
std::string slurmJobName(const std::string& run_name);

// argv for sbatch (argv[0] = `sbatch_program`), ending with the script path. --no-requeue: a
// preempted or lost job is retried by the scheduler (with --resume), never rerun by Slurm.
// A run of P ranks asks for --ntasks=P (GPUs per task as gpusPerTask).
std::vector<std::string> sbatchArguments(const std::string& sbatch_program, const PendingRun& run,
                                         const ladder::SlurmOptions& options,
                                         const JobFiles& files);

// GPUs each task of the job asks for: the run's gpus_per_rank when set, else slurm.gpus_per_task.
int64_t gpusPerTask(const PendingRun& run, const ladder::SlurmOptions& options);

// The srun prefix that starts the P ranks of a data-parallel run inside the job (empty for one
// rank): one task per rank with the job's CPUs and GPUs each, and the whole step killed as soon
// as one rank exits badly (the others could only wait for it).
std::vector<std::string> rankLauncher(const std::string& srun_program, const PendingRun& run,
                                      const ladder::SlurmOptions& options);

// Creates files.dir and writes `script` to files.script (mode 0755). Throws std::runtime_error.
void writeJobScript(const JobFiles& files, const std::string& script);

}  // namespace deepladder::scheduler
