// One small fork-join helper for the places that split independent work across a few threads
// (the Chinchilla fit's start grid, the frontier bootstrap, suggest's scoring, the Compare view's
// curve reads). No pool is kept: each call starts its threads and joins them.
#pragma once

#include <functional>

namespace deepladder {

// Runs work(t) for t = 0..n-1 at once: t = 0 on the calling thread, each other t on a thread of
// its own; returns when all have ended. An exception thrown by work(t) ends only that t; once all
// have joined, the one of the lowest t is rethrown here (so a failing worker never reaches
// std::terminate). n <= 1 runs work(0) on the calling thread alone (nothing for n <= 0).
// work(t) usually takes every n-th item from t: for (i = t; i < count; i += n).
void parallelFor(int n, const std::function<void(int t)>& work);

}  // namespace deepladder
