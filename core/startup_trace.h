// The worker's start-up trace: with DEEPLADDER_STARTUP_TRACE=T (T: the launcher's wall clock at
// launch, in seconds since the epoch, as Python's time.time() gives it) the worker prints one
// line on stderr per start-up phase, "startup: PHASE MS ms", MS counted from T, so that a
// benchmark can tell library load and static initializers (before "main") from what main spends
// before the hello. Unset: nothing is printed and a mark costs one branch.
#pragma once

namespace deepladder {

// Prints the phase's line when the trace is on.
void startupMark(const char* phase);

}  // namespace deepladder
