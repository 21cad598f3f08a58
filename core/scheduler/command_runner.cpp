// Running a program with a deadline (see command_runner.h).
#include "core/scheduler/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/clock_seconds.h"
#include "core/scheduler/sbatch_script.h"

namespace deepladder::scheduler {

CommandResult runCommand(const std::vector<std::string>& argv, double timeout_s) {
  CommandResult result;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result.output = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const std::string exec_failed = std::string("cannot run ") + argv[0] + "\n";  // before fork
  const pid_t pid = fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    result.output = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execvp(cargv[0], cargv.data());
    (void)!::write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
    _exit(127);
  }
  ::close(fds[1]);
  const double deadline = steadySeconds() + timeout_s;
  bool timed_out = false;
  char buffer[4096];
  for (;;) {
    const double left = deadline - steadySeconds();
    if (left <= 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left * 1000) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.started = !(WIFEXITED(status) && WEXITSTATUS(status) == 127);
  if (timed_out)
    result.output += "(timed out after " + std::to_string(int(timeout_s)) + " s)";
  else if (WIFEXITED(status))
    result.status = WEXITSTATUS(status);
  return result;
}

std::string joinedCommand(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + shellQuote(a);
  return out;
}

}  // namespace deepladder::scheduler
