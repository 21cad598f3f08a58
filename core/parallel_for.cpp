// Fork-join over n threads (see parallel_for.h).
#include "core/parallel_for.h"

#include <exception>
#include <thread>
#include <vector>

namespace deepladder {

void parallelFor(int n, const std::function<void(int t)>& work) {
  if (n <= 0) return;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  auto guarded = [&](int t) {
    try {
      work(t);
    } catch (...) {
      errors[static_cast<size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n - 1));
  try {
    for (int t = 1; t < n; ++t) threads.emplace_back(guarded, t);
  } catch (...) {  // a thread could not be started: still join those that were
    for (auto& thread : threads) thread.join();
    throw;
  }
  guarded(0);
  for (auto& thread : threads) thread.join();
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace deepladder
