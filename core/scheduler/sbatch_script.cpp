// Slurm job scripts and sbatch argv (see sbatch_script.h).
#include "core/scheduler/sbatch_script.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace deepladder::scheduler {

namespace fs = std::filesystem;

namespace {

bool isIdentifier(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

// Slurm expands %j, %x, ... in --output; "%%" is a literal '%'.
std::string escapeSlurmFilenamePattern(const std::string& path) {
  std::string out;
  for (char c : path) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

}  // namespace

JobFiles jobFiles(const PendingRun& run, int64_t attempt, const ladder::SlurmOptions& options) {
  const fs::path run_dir = fs::absolute(run.workdir);
  const fs::path dir = options.workdir.empty()
                           ? run_dir / "slurm"
                           : fs::absolute(options.workdir) / ("run-" + std::to_string(run.id));
  const std::string n = std::to_string(attempt);
  JobFiles files;
  files.dir = dir.string();
  files.script = (dir / ("job-" + n + ".sh")).string();
  files.protocol = (dir / ("attempt-" + n + ".jsonl")).string();
  files.exit_code = (dir / ("attempt-" + n + ".exit")).string();
  files.worker_log = (run_dir / "worker.log").string();
  files.sbatch_log = (dir / ("sbatch-" + n + ".log")).string();
  files.job_id = (dir / ("attempt-" + n + ".jobid")).string();
  return files;
}

std::string shellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";  // close, escaped quote, reopen
    else if (c == '\r')
      out += "'\"$(printf '\\r')\"'";
    else
      out += c;
  }
  return out + "'";
}

std::string jobScript(const std::vector<std::string>& worker_argv,
                      const std::map<std::string, std::string>& env, const JobFiles& files) {
  std::string script =
      "#!/bin/sh\n"
      "# deepladder job script (generated): one attempt of one run. Every value is single-quoted.\n"
      "# A signal to the job (scancel --signal=TERM) reaches the worker; this shell waits for it\n"
      "# and records its exit status last, so a missing status file means the job was killed.\n"
      "trap 'deepladder_signalled=1' TERM INT HUP USR1 USR2\n";
  for (const auto& [name, value] : env) {
    if (!isIdentifier(name))
      throw std::invalid_argument("environment variable name \"" + name + "\" is not valid");
    script += name + "=" + shellQuote(value) + "\nexport " + name + "\n";
  }
  std::string command;
  for (const auto& arg : worker_argv) command += (command.empty() ? "" : " ") + shellQuote(arg);
  const std::string exit_tmp = files.exit_code + ".tmp";
  script += command + " >" + shellQuote(files.protocol) + " 2>>" + shellQuote(files.worker_log) +
            " </dev/null\n";
  script += "deepladder_status=$?\n";
  script += "printf '%s\\n' \"$deepladder_status\" >" + shellQuote(exit_tmp) + " && mv -f " +
            shellQuote(exit_tmp) + " " + shellQuote(files.exit_code) + "\n";
  script += "exit \"$deepladder_status\"\n";
  return script;
}

std::string slurmJobName(const std::string& run_name) {
  std::string out;
  for (char c : run_name) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '_' : c;
  return out.empty() ? "deepladder" : out;
}

std::vector<std::string> sbatchArguments(const std::string& sbatch_program, const PendingRun& run,
                                         const ladder::SlurmOptions& options,
                                         const JobFiles& files) {
  std::vector<std::string> argv = {sbatch_program, "--parsable",
                                   "--job-name=" + slurmJobName(run.name),
                                   "--output=" + escapeSlurmFilenamePattern(files.sbatch_log),
                                   "--chdir=" + fs::absolute(run.workdir).string(),
                                   // Retries are the scheduler's (with --resume, into new files):
                                   // Slurm must not rerun the same script after preemption.
                                   "--no-requeue"};
  if (!options.time_limit.empty()) argv.push_back("--time=" + options.time_limit);
  if (!options.partition.empty()) argv.push_back("--partition=" + options.partition);
  if (run.ranks > 1) argv.push_back("--ntasks=" + std::to_string(run.ranks));
  argv.push_back("--cpus-per-task=" + std::to_string(options.cpus_per_task));
  if (const int64_t gpus = gpusPerTask(run, options); gpus > 0)
    argv.push_back("--gpus-per-task=" + std::to_string(gpus));
  for (const auto& extra : options.extra) argv.push_back(extra);
  argv.push_back(files.script);
  return argv;
}

int64_t gpusPerTask(const PendingRun& run, const ladder::SlurmOptions& options) {
  return run.gpus_per_rank > 0 ? run.gpus_per_rank : options.gpus_per_task;
}

std::vector<std::string> rankLauncher(const std::string& srun_program, const PendingRun& run,
                                      const ladder::SlurmOptions& options) {
  if (run.ranks <= 1) return {};
  std::vector<std::string> argv = {srun_program, "--ntasks=" + std::to_string(run.ranks),
                                   "--cpus-per-task=" + std::to_string(options.cpus_per_task),
                                   "--kill-on-bad-exit=1"};
  if (const int64_t gpus = gpusPerTask(run, options); gpus > 0)
    argv.push_back("--gpus-per-task=" + std::to_string(gpus));
  return argv;
}

void writeJobScript(const JobFiles& files, const std::string& script) {
  std::error_code ec;
  fs::create_directories(files.dir, ec);
  if (ec)
    throw std::runtime_error(files.dir + ": cannot create the Slurm job directory (" +
                             ec.message() + ")");
  const std::string tmp = files.script + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << script;
    if (!out.flush()) throw std::runtime_error(files.script + ": cannot write the job script");
  }
  ::chmod(tmp.c_str(), 0755);
  fs::rename(tmp, files.script, ec);
  if (ec)
    throw std::runtime_error(files.script + ": cannot write the job script (" + ec.message() + ")");
}

}  // namespace deepladder::scheduler
