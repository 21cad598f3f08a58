// Runs a program with an argv (no shell) and a deadline, capturing its output: how the Slurm
// backend calls sbatch, squeue and scancel. A program that cannot be started is reported as such
// (started = false), one past its deadline is killed.
#pragma once

#include <string>
#include <vector>

namespace deepladder::scheduler {

struct CommandResult {
  bool started = false;  // false: could not run it (not installed?)
  int status = -1;       // exit status, or -1 when killed/timed out
  std::string output;    // stdout and stderr together
};

// fork/exec with an argv (no shell), output captured, killed after `timeout_s`.
CommandResult runCommand(const std::vector<std::string>& argv, double timeout_s);

// The argv as one shell-quoted line, for messages.
std::string joinedCommand(const std::vector<std::string>& argv);

}  // namespace deepladder::scheduler
