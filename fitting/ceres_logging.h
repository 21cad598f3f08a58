// Internal to fitting/ (.cpp files only): keeps Ceres' glog warnings out of the user's terminal.
// The multi-start and bootstrap fits visit far-off parameters by design; Ceres then logs a
// warning for every rejected step (a flat line search, a residual that overflowed). Errors
// still show. Called before each batch of solves; sets the level once per process.
#pragma once

#include <glog/logging.h>

#include <mutex>

namespace deepladder::fitting {

inline void quietCeresWarnings() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (FLAGS_minloglevel < google::GLOG_ERROR) FLAGS_minloglevel = google::GLOG_ERROR;
  });
}

}  // namespace deepladder::fitting
