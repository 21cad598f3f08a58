// Makes the worker's OpenMP threads wait passively (OMP_WAIT_POLICY=PASSIVE) unless the
// environment already says otherwise, without re-executing the worker. libgomp reads the variable
// once, in its own initializer, when it is loaded; a function in the executable's .preinit_array
// runs before the initializer of any shared library (the dynamic loader calls the executable's
// preinit functions first), so setting the variable there is early enough. Only an executable's
// .preinit_array is honoured: this file is compiled into deepladder-worker itself.
#include <cstdlib>

namespace {

void preferPassiveOpenMpWaiting(int, char**, char**) {
  ::setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
}

}  // namespace

__attribute__((section(".preinit_array"),
               used)) static void (*const kPassiveOpenMp)(int, char**,
                                                          char**) = preferPassiveOpenMpWaiting;
