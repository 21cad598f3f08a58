// A TCP port for a rendezvous on this machine: what the kernel hands out for 127.0.0.1:0, free a
// moment ago (the local backend's data-parallel runs; the distributed tests).
#pragma once

namespace deepladder {

// Throws std::runtime_error when no socket can be bound.
int pickFreeLocalPort();

}  // namespace deepladder
