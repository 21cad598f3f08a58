// The process-wide query hook (see query_thread_guard.h).
#include "storage/query_thread_guard.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace deepladder::storage {
namespace {

std::mutex guard_mutex;
std::shared_ptr<const std::function<void()>> guard_function;  // guarded by guard_mutex
std::atomic<bool> guard_installed{false};

}  // namespace

void setQueryThreadGuard(std::function<void()> guard) {
  std::lock_guard<std::mutex> lock(guard_mutex);
  guard_function =
      guard ? std::make_shared<const std::function<void()>>(std::move(guard)) : nullptr;
  guard_installed.store(guard_function != nullptr, std::memory_order_release);
}

void checkQueryThread() {
  if (!guard_installed.load(std::memory_order_acquire)) return;
  std::shared_ptr<const std::function<void()>> guard;
  {
    std::lock_guard<std::mutex> lock(guard_mutex);
    guard = guard_function;
  }
  if (guard) (*guard)();
}

}  // namespace deepladder::storage
