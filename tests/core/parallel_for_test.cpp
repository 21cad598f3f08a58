// parallelFor (core/parallel_for.h): every index runs exactly once, t = 0 on the caller's thread,
// and an exception in a worker thread comes back to the caller instead of ending the process.
#include "core/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace deepladder {
namespace {

TEST(ParallelFor, RunsEveryIndexOnce) {
  for (int n : {1, 2, 3, 8}) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(n));
    parallelFor(n, [&](int t) { ++runs[static_cast<size_t>(t)]; });
    for (int t = 0; t < n; ++t) EXPECT_EQ(runs[static_cast<size_t>(t)].load(), 1) << n << " " << t;
  }
}

TEST(ParallelFor, NothingToDoRunsNothing) {
  int runs = 0;
  parallelFor(0, [&](int) { ++runs; });
  parallelFor(-3, [&](int) { ++runs; });
  EXPECT_EQ(runs, 0);
}

TEST(ParallelFor, IndexZeroRunsOnTheCallersThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::thread::id> ids(4);
  parallelFor(4, [&](int t) { ids[static_cast<size_t>(t)] = std::this_thread::get_id(); });
  EXPECT_EQ(ids[0], caller);
  for (size_t t = 1; t < ids.size(); ++t) EXPECT_NE(ids[t], caller) << t;
}

TEST(ParallelFor, ExceptionInAWorkerThreadIsRethrownInTheCaller) {
  std::atomic<int> ended{0};
  try {
    parallelFor(4, [&](int t) {
      if (t == 2) throw std::runtime_error("index 2 failed");
      ++ended;
    });
    FAIL() << "no exception came back";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 2 failed");
  }
  EXPECT_EQ(ended.load(), 3);  // the others ran to their end and were joined
}

TEST(ParallelFor, LowestFailingIndexWins) {
  try {
    parallelFor(3, [](int t) { throw std::runtime_error("index " + std::to_string(t)); });
    FAIL() << "no exception came back";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 0");
  }
}

}  // namespace
}  // namespace deepladder
