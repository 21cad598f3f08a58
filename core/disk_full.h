// A full disk is not a run's fault: a worker that cannot write its checkpoint (no space left, a
// quota, or a file-size limit) removes what it half wrote, says so and exits with kExitDiskFull;
// the run is then marked interrupted (not failed) and the scheduler stops launching, so
// `deepladder resume` continues it from its last whole checkpoint once space is freed
// (core/run_outcome.h, core/scheduler/scheduler.cpp).
#pragma once

#include <cerrno>
#include <stdexcept>
#include <string>

namespace deepladder {

// The worker's exit status when a write found the disk full (74: sysexits' EX_IOERR).
inline constexpr int kExitDiskFull = 74;

// ENOSPC, EDQUOT, or EFBIG (a file-size limit, as `ulimit -f` sets).
inline bool isDiskFullErrno(int err) {
  return err == ENOSPC || err == EDQUOT || err == EFBIG;
}

// Thrown where a write finds the disk full; its message names the file.
class DiskFullError : public std::runtime_error {
 public:
  explicit DiskFullError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace deepladder
