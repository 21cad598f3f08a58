// Seconds as doubles from the two clocks the project reads: the wall clock (unix time, what is
// stored in the database: heartbeats, start and end times) and the monotonic clock (deadlines and
// timeouts, which must not jump when the wall clock is set).
#pragma once

#include <chrono>

namespace deepladder {

// Unix time in seconds (system clock).
inline double unixSeconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// Seconds on the monotonic clock since an unspecified start: compare, never store.
inline double steadySeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace deepladder
