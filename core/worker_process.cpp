// Child process with line-oriented stdout (see worker_process.h).
#include "core/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/safe_file.h"

extern char** environ;

namespace deepladder {

std::string ProcessExit::describe() const {
  if (exited) return "exit status " + std::to_string(code);
  return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

WorkerProcess::WorkerProcess(const ProcessSpec& spec) {
  if (spec.argv.empty()) throw std::runtime_error("WorkerProcess: empty argv");
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  int in_fds[2] = {-1, -1};
  if (spec.stdin_pipe && pipe2(in_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  int err_fd = -1;
  if (!spec.stderr_path.empty()) {
    // A log in a run directory is a regular file, never a link followed; /dev/null discards.
    err_fd =
        spec.stderr_path == "/dev/null"
            ? ::open("/dev/null", O_WRONLY | O_CLOEXEC)
            : openRegularFile(spec.stderr_path, O_WRONLY | O_CREAT | O_APPEND, "the worker's log");
  }
  if (!spec.stdout_copy_path.empty()) {
    copy_fd_ = openRegularFile(spec.stdout_copy_path, O_WRONLY | O_CREAT | O_APPEND,
                               "the copy of the worker's output");
  }
  // Build argv/envp before fork (no allocation in the child).
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('='));
    if (!spec.env.count(key)) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
  const pid_t parent = ::getpid();
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid_ == 0) {
    setpgid(0, 0);
    // Die with the parent: a killed scheduler must not leave workers training on. The check
    // after prctl covers a parent that died before it (the child was then re-parented already).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(128 + SIGKILL);
    dup2(pipe_fds[1], STDOUT_FILENO);
    if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
    int in_fd = in_fds[0] >= 0 ? in_fds[0] : ::open("/dev/null", O_RDONLY);
    if (in_fd >= 0) dup2(in_fd, STDIN_FILENO);
    execve(argv[0], argv.data(), envp.data());
    const char* msg = "deepladder: cannot execute the worker program\n";
    (void)!write(STDERR_FILENO, msg, std::strlen(msg));
    _exit(127);
  }
  setpgid(pid_, pid_);
  ::close(pipe_fds[1]);
  if (err_fd >= 0) ::close(err_fd);
  if (in_fds[0] >= 0) ::close(in_fds[0]);
  stdin_fd_ = in_fds[1];
  stdout_fd_ = pipe_fds[0];
}

WorkerProcess::~WorkerProcess() {
  if (!reaped_ && pid_ > 0) {
    ProcessExit ignored;
    if (!finished(&ignored)) {
      terminate(SIGKILL);
      wait();
    }
  }
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  if (copy_fd_ >= 0) ::close(copy_fd_);
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
}

bool WorkerProcess::writeInput(const std::string& text) {
  if (stdin_fd_ < 0) return false;
  // A child that is gone would raise SIGPIPE: block it for this thread, and take a pending one
  // away again before unblocking.
  sigset_t pipe_only, previous;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
  size_t done = 0;
  bool ok = true;
  while (done < text.size()) {
    const ssize_t n = ::write(stdin_fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (!ok && errno == EPIPE) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe_only, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return ok;
}

void WorkerProcess::copyStdoutTo(const std::string& path) {
  const int fd =
      openRegularFile(path, O_WRONLY | O_CREAT | O_APPEND, "the copy of the worker's output");
  if (copy_fd_ >= 0) ::close(copy_fd_);
  copy_fd_ = fd;
}

bool WorkerProcess::poll(int timeout_ms, const std::function<void(const std::string&)>& on_line) {
  if (stdout_fd_ < 0) return false;
  pollfd p{stdout_fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, timeout_ms);
  if (ready < 0 && errno == EINTR) return true;
  if (ready <= 0) return true;
  char buffer[1 << 16];
  const ssize_t n = ::read(stdout_fd_, buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) {
    if (!partial_.empty()) {
      on_line(partial_);
      partial_.clear();
    }
    ::close(stdout_fd_);
    stdout_fd_ = -1;
    return false;
  }
  if (copy_fd_ >= 0) (void)!::write(copy_fd_, buffer, static_cast<size_t>(n));
  size_t start = 0;
  for (ssize_t i = 0; i < n; ++i) {
    if (buffer[i] != '\n') continue;
    partial_.append(buffer + start, static_cast<size_t>(i) - start);
    on_line(partial_);
    partial_.clear();
    start = static_cast<size_t>(i) + 1;
  }
  partial_.append(buffer + start, static_cast<size_t>(n) - start);
  return true;
}

ProcessExit WorkerProcess::runToEnd(const std::function<void(const std::string&)>& on_line,
                                    const std::function<void()>& on_idle, int idle_ms) {
  while (poll(idle_ms, on_line)) {
    if (on_idle) on_idle();
  }
  return wait();
}

ProcessExit WorkerProcess::wait() {
  if (reaped_) return exit_;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) break;
  }
  reaped_ = true;
  exit_.exited = WIFEXITED(status);
  exit_.code = exit_.exited ? WEXITSTATUS(status) : 0;
  exit_.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return exit_;
}

bool WorkerProcess::finished(ProcessExit* out) {
  if (reaped_) {
    *out = exit_;
    return true;
  }
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r != pid_) return false;
  reaped_ = true;
  exit_.exited = WIFEXITED(status);
  exit_.code = exit_.exited ? WEXITSTATUS(status) : 0;
  exit_.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  *out = exit_;
  return true;
}

void WorkerProcess::terminate(int signal) {
  if (pid_ > 0 && !reaped_) ::kill(-pid_, signal);
}

std::string executableDirectory() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace deepladder
