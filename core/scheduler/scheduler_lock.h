// One scheduler per database: an exclusive flock on "<db>.scheduler.lock", held while a
// scheduler runs and released by the kernel when its process dies (even by kill -9). Holding it
// proves that no other scheduler is alive, so runs still marked "running" are orphans.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace deepladder::scheduler {

// "<db>.scheduler.lock", the file the lock is held on.
std::string schedulerLockPath(const std::string& db_path);

// The pid of the process holding the database's scheduler lock (its flock, so a dead scheduler
// whose pid now names another process does not count); nullopt when nobody holds it.
std::optional<pid_t> schedulerLockHolder(const std::string& db_path);

class SchedulerLock {
 public:
  // Throws UserError naming the other scheduler's pid when the lock is held.
  explicit SchedulerLock(const std::string& db_path);
  ~SchedulerLock();
  SchedulerLock(const SchedulerLock&) = delete;
  SchedulerLock& operator=(const SchedulerLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace deepladder::scheduler
