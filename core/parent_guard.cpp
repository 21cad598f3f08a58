// Dying with the parent, the worker's side (see parent_guard.h).
#include "core/parent_guard.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace deepladder {

namespace {

pid_t g_parent = 0;

}  // namespace

void watchParent() {
  g_parent = ::getppid();
  // A death signal from WorkerProcess (SIGKILL) is kept; otherwise ask for SIGTERM.
  int current = 0;
  if (::prctl(PR_GET_PDEATHSIG, &current) != 0 || current == 0) ::prctl(PR_SET_PDEATHSIG, SIGTERM);
}

bool parentGone() {
  return g_parent > 0 && ::getppid() != g_parent;
}

}  // namespace deepladder
