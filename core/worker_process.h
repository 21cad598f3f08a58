// A child process whose stdout is read line by line: how the CLI and the scheduler run a
// `deepladder-worker`. POSIX only (fork/exec, pipes); the child gets its own process group so a
// kill reaches everything it started, and dies with its parent (PR_SET_PDEATHSIG, SIGKILL): a
// scheduler killed with kill -9 leaves no worker behind. The kernel sends that signal when the
// *thread* that started the child ends, so start children from a thread that outlives them (the
// schedulers wait for their workers before they return). Qt-free.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace deepladder {

struct ProcessSpec {
  std::vector<std::string> argv;           // argv[0] is the program path
  std::map<std::string, std::string> env;  // added to (or overriding) the parent's environment
  std::string stderr_path;                 // child's stderr goes here (appended); "" = inherit
  std::string stdout_copy_path;            // every stdout line also appended here ("" = none)
  bool stdin_pipe = false;                 // stdin: a pipe for writeInput (else /dev/null)
};

struct ProcessExit {
  bool exited = false;           // exited normally (else killed by a signal)
  int code = 0;                  // exit status when exited
  int signal = 0;                // signal number when killed
  std::string describe() const;  // "exit status 3", "killed by signal 9 (Killed)"
};

class WorkerProcess {
 public:
  // Starts the process; throws std::runtime_error when it cannot be started.
  explicit WorkerProcess(const ProcessSpec& spec);
  ~WorkerProcess();  // kills the process group if still running, then reaps
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  int outputFd() const { return stdout_fd_; }  // -1 once stdout is closed

  // Reads available output for up to `timeout_ms` and calls `on_line` for every complete line.
  // Returns false once stdout is closed (end of output).
  bool poll(int timeout_ms, const std::function<void(const std::string&)>& on_line);

  // Reads until the end of output, then waits for the exit.
  ProcessExit runToEnd(const std::function<void(const std::string&)>& on_line,
                       const std::function<void()>& on_idle = {}, int idle_ms = 200);

  // Writes `text` to the child's stdin (ProcessSpec::stdin_pipe); false when the child is gone
  // or has no stdin pipe (never raises SIGPIPE).
  bool writeInput(const std::string& text);
  // From now on every stdout line is also appended to `path` (as ProcessSpec::stdout_copy_path).
  void copyStdoutTo(const std::string& path);

  ProcessExit wait();               // blocks until the process exits
  bool finished(ProcessExit* out);  // non-blocking
  void terminate(int signal);       // to the whole process group

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int copy_fd_ = -1;
  int stdin_fd_ = -1;
  bool reaped_ = false;
  ProcessExit exit_;
  std::string partial_;
};

// The directory holding the running executable (for finding deepladder-worker beside it).
std::string executableDirectory();

}  // namespace deepladder
