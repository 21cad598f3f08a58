// Stopping a fit in flight: the caller (the workbench, when a newer fit supersedes one or the
// window closes) calls cancel() from any thread; the fit checks it between bootstrap resamples
// and Ceres checks it after every iteration (an IterationCallback that aborts the solve).
// fitFrontier returns early with FrontierResult::cancelled set; layers that must not keep a
// cancelled fit (the fits cache) throw FitCancelled instead.
#pragma once

#include <atomic>
#include <stdexcept>

namespace deepladder::fitting {

class Cancellation {
 public:
  void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancelled_{false};
};

// True when `c` is set and cancelled.
inline bool isCancelled(const Cancellation* c) {
  return c && c->cancelled();
}

class FitCancelled : public std::runtime_error {
 public:
  FitCancelled() : std::runtime_error("fit cancelled (superseded by a newer fit, or closed)") {}
};

}  // namespace deepladder::fitting
