// Run directory locks (see run_dir_lock.h).
#include "core/run_dir_lock.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/safe_file.h"

namespace deepladder {

namespace {

std::string lockPath(const std::string& dir, const std::string& name) {
  return dir + "/" + name;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

pid_t readPid(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return -1;
  char* end = nullptr;
  const long pid = std::strtol(text, &end, 10);
  return end != text && pid > 0 ? static_cast<pid_t>(pid) : -1;
}

// True when process `pid` has a descriptor open on the file (device, inode) = `target`.
bool holdsFile(pid_t pid, const struct stat& target) {
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* dir = ::opendir(fd_dir.c_str());
  if (!dir) return false;
  bool found = false;
  while (dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    struct stat info {};
    if (::stat((fd_dir + "/" + entry->d_name).c_str(), &info) == 0 &&
        info.st_dev == target.st_dev && info.st_ino == target.st_ino) {
      found = true;
      break;
    }
  }
  ::closedir(dir);
  return found;
}

}  // namespace

std::unique_ptr<RunDirLock> RunDirLock::acquire(const std::string& dir, const std::string& name,
                                                double wait_s) {
  const std::string path = lockPath(dir, name);
  const int fd = openRegularFile(path, O_RDWR | O_CREAT, "the run's lock file");
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) break;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int error = errno;
      ::close(fd);
      throw std::runtime_error(path + ": cannot lock (" + std::string(std::strerror(error)) + ")");
    }
    if (secondsSince(start) >= wait_s) {
      ::close(fd);
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
  return std::unique_ptr<RunDirLock>(new RunDirLock(fd));
}

RunDirLock::~RunDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the only descriptor releases the flock
}

std::optional<pid_t> lockHolder(const std::string& dir, const std::string& name, bool* verified) {
  return lockFileHolder(lockPath(dir, name), verified);
}

std::optional<pid_t> lockFileHolder(const std::string& path, bool* verified) {
  if (verified) *verified = false;
  // Never through a link, never blocked on a FIFO: such a "lock" is nobody's.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat regular {};
  if (::fstat(fd, &regular) != 0 || !S_ISREG(regular.st_mode)) {
    ::close(fd);
    return std::nullopt;
  }
  // A shared lock is refused only while someone holds the exclusive one.
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
    ::close(fd);
    return std::nullopt;
  }
  const pid_t pid = readPid(fd);
  struct stat target {};
  const bool have_target = ::fstat(fd, &target) == 0;
  ::close(fd);
  if (verified && pid > 0 && have_target) *verified = holdsFile(pid, target);
  return pid;
}

bool stopLockHolder(const std::string& dir, const std::string& name, double grace_s,
                    double wait_s) {
  const auto start = std::chrono::steady_clock::now();
  bool terminated = false, killed = false;
  for (;;) {
    bool verified = false;
    const std::optional<pid_t> holder = lockHolder(dir, name, &verified);
    if (!holder) return true;
    const double elapsed = secondsSince(start);
    if (elapsed >= wait_s) return false;
    if (verified && !terminated) {
      ::kill(*holder, SIGTERM);
      terminated = true;
    } else if (verified && !killed && elapsed >= grace_s) {
      ::kill(*holder, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace deepladder
