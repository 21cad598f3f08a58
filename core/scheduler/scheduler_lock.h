// One scheduler per database: an exclusive flock on "<db>.scheduler.lock", held while a
// scheduler runs and released by the kernel when its process dies (even by kill -9). Holding it
// proves that no other scheduler is alive, so runs still marked "running" are orphans.
#pragma once

#include <string>

namespace deepladder::scheduler {

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
