// Scheduler lock file (see scheduler_lock.h).
#include "core/scheduler/scheduler_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/errors.h"
#include "core/run_dir_lock.h"
#include "core/safe_file.h"

namespace deepladder::scheduler {

std::string schedulerLockPath(const std::string& db_path) {
  return db_path + ".scheduler.lock";
}

std::optional<pid_t> schedulerLockHolder(const std::string& db_path) {
  return lockFileHolder(schedulerLockPath(db_path));
}

SchedulerLock::SchedulerLock(const std::string& db_path) {
  const std::string path = schedulerLockPath(db_path);
  try {
    fd_ = openRegularFile(path, O_RDWR | O_CREAT, "the scheduler lock");
  } catch (const UserError& e) {
    throw UserError(std::string(e.what()) + ". Is the database directory writable?");
  }
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buffer[64] = {0};
    const ssize_t n = pread(fd_, buffer, sizeof buffer - 1, 0);
    ::close(fd_);
    fd_ = -1;
    throw UserError(db_path + ": another deepladder scheduler is running on this database" +
                    (n > 0 ? " (pid " + std::string(buffer, static_cast<size_t>(n)) + ")" : "") +
                    ". Watch it with 'deepladder status', or stop it first");
  }
  const std::string pid = std::to_string(getpid());
  if (ftruncate(fd_, 0) == 0) (void)!pwrite(fd_, pid.data(), pid.size(), 0);
}

SchedulerLock::~SchedulerLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace deepladder::scheduler
