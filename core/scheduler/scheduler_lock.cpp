// Scheduler lock file (see scheduler_lock.h).
#include "core/scheduler/scheduler_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/errors.h"

namespace deepladder::scheduler {

SchedulerLock::SchedulerLock(const std::string& db_path) {
  const std::string path = db_path + ".scheduler.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw UserError(path + ": cannot create the scheduler lock (" + std::strerror(errno) +
                    "). Is the database directory writable?");
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
