// The worker's start-up trace (see startup_trace.h).
#include "core/startup_trace.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace deepladder {

void startupMark(const char* phase) {
  // Read each time: a standby worker gets the variable with its assignment, after loading.
  const char* text = std::getenv("DEEPLADDER_STARTUP_TRACE");
  const double launched = text ? std::atof(text) : 0.0;
  if (launched <= 0) return;
  using namespace std::chrono;
  const double now = duration<double>(system_clock::now().time_since_epoch()).count();
  std::fprintf(stderr, "startup: %s %.1f ms\n", phase, 1000 * (now - launched));
}

}  // namespace deepladder
