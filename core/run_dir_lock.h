// Locks on a run directory, so that two processes never train one run at once. Each lock is a
// file in the run directory held with flock(LOCK_EX) for as long as its holder lives (the kernel
// drops it when the holder dies, however it dies) and holding the holder's pid as text:
//   worker.lock  the worker (rank 0) training the run;
//   owner.lock   the process driving a single run (`deepladder train`, or `resume` for it); ladder
//                runs are driven by the scheduler holding the database's scheduler lock.
// A lock that is held names a live run; a free one, whatever the database says, a dead one.
// Stopping a stale holder (a worker left over from a dead scheduler) verifies through /proc that
// the pid really holds the lock file before signalling it. Linux only.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>

namespace deepladder {

inline constexpr const char* kWorkerLockName = "worker.lock";
inline constexpr const char* kOwnerLockName = "owner.lock";

class RunDirLock {
 public:
  // Takes <dir>/<name>, waiting up to `wait_s` seconds for a holder to let go (0: one try).
  // nullptr when it is still held then; throws std::runtime_error when the file cannot be
  // created (a missing or unwritable directory).
  static std::unique_ptr<RunDirLock> acquire(const std::string& dir, const std::string& name,
                                             double wait_s);
  ~RunDirLock();  // releases the lock
  RunDirLock(const RunDirLock&) = delete;
  RunDirLock& operator=(const RunDirLock&) = delete;

 private:
  explicit RunDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// The holder of <dir>/<name>: nullopt when nobody holds it (or the file does not exist); else its
// pid as written in the file (-1 when unreadable). `verified` is set when /proc shows that pid
// holding the lock file open.
std::optional<pid_t> lockHolder(const std::string& dir, const std::string& name,
                                bool* verified = nullptr);
// The same for a lock file named by its whole path (the database's scheduler lock).
std::optional<pid_t> lockFileHolder(const std::string& path, bool* verified = nullptr);

// Makes sure nobody holds <dir>/<name>: a verified holder gets SIGTERM, then SIGKILL after
// `grace_s`; an unverified one is waited for. True once the lock is free (within `wait_s`).
bool stopLockHolder(const std::string& dir, const std::string& name, double grace_s, double wait_s);

}  // namespace deepladder
