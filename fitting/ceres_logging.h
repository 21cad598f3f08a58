// Internal to fitting/ (.cpp files only): keeps Ceres' glog messages out of the user's terminal.
// The multi-start and bootstrap fits visit far-off parameters by design; Ceres then logs a
// warning for every rejected step (a flat line search, a residual that overflowed), and an
// ERROR line when a solve ends on too many consecutive invalid steps (a bootstrap resample that
// drew an awkward curve). Neither is the user's to act on: the fits judge every solve's result
// themselves and report what failed. Only fatal messages show. Called before each batch of
// solves; sets the level once per process.
#pragma once

#include <glog/logging.h>

#include <mutex>

namespace deepladder::fitting {

inline void quietCeresWarnings() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (FLAGS_minloglevel < google::GLOG_FATAL) FLAGS_minloglevel = google::GLOG_FATAL;
  });
}

}  // namespace deepladder::fitting
