// Cancelling a fit: a cancelled bootstrap stops between resamples (and Ceres aborts the solve in
// flight), returning promptly with FrontierResult::cancelled and fewer resamples than asked for;
// a fit cancelled before it starts fits nothing; the cached ladder fit neither keeps nor stores a
// cancelled fit (FitCancelled).
#include "fitting/cancellation.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fitting/frontier_fit.h"
#include "fitting/ladder_fit.h"
#include "memory_fit_cache.h"
#include "synthetic_data.h"

namespace deepladder::fitting {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Robust estimator (Ceres for every arm of every resample) and the most resamples allowed:
// minutes of work when nothing stops it.
FrontierOptions longBootstrap(const Cancellation* cancel) {
  FrontierOptions o = defaultFrontierOptions();
  o.estimator = FrontierEstimator::Robust;
  o.bootstrap = kMaxBootstrap;
  o.threads = 2;
  o.cancellation = cancel;
  return o;
}

TEST(FitCancellation, CancelledBootstrapReturnsPromptlyAndSaysSo) {
  const auto table = testing::syntheticLadder(testing::designDocArms(), 8, 0.01, 3);
  Cancellation cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel.cancel();
  });
  const auto start = Clock::now();
  const FrontierResult result = fitFrontier(table, longBootstrap(&cancel));
  const double seconds = secondsSince(start);
  canceller.join();
  EXPECT_TRUE(result.cancelled);
  EXPECT_EQ(result.bootstrap_requested, kMaxBootstrap);
  EXPECT_LT(result.bootstrap_used, kMaxBootstrap);
  EXPECT_EQ(result.arms.size(), 2u) << "the point fit finished before the cancel";
  EXPECT_TRUE(std::isnan(result.arms[0].gamma_ci_lo)) << "no intervals from part of a bootstrap";
  EXPECT_LT(seconds, 5.0) << "cancelled 0.2 s in";
}

TEST(FitCancellation, CancelBeforeStartFitsNothing) {
  const auto table = testing::syntheticLadder(testing::designDocArms(), 8, 0.01, 3);
  Cancellation cancel;
  cancel.cancel();
  const auto start = Clock::now();
  const FrontierResult result = fitFrontier(table, longBootstrap(&cancel));
  EXPECT_LT(secondsSince(start), 0.5);
  EXPECT_TRUE(result.cancelled);
  EXPECT_TRUE(result.arms.empty());
  EXPECT_EQ(result.bootstrap_used, 0);
  EXPECT_TRUE(result.bootstrap_draws.empty());
}

TEST(FitCancellation, UncancelledFitIsUnchangedByTheFlag) {
  const auto table = testing::syntheticLadder(testing::designDocArms(), 8, 0.01, 3);
  FrontierOptions plain = defaultFrontierOptions();
  plain.bootstrap = 50;
  Cancellation never;
  FrontierOptions with_flag = plain;
  with_flag.cancellation = &never;
  const auto a = fitFrontier(table, plain);
  const auto b = fitFrontier(table, with_flag);
  EXPECT_FALSE(b.cancelled);
  EXPECT_EQ(a.bootstrap_used, b.bootstrap_used);
  EXPECT_EQ(a.arms[1].gamma, b.arms[1].gamma);
  EXPECT_EQ(a.arms[1].gamma_ci_lo, b.arms[1].gamma_ci_lo);
}

TEST(FitCancellation, CachedLadderFitThrowsAndStoresNothing) {
  const auto table = testing::syntheticLadder(testing::designDocArms(), 8, 0.01, 3);
  testing::MemoryFitCache cache;
  LadderFitter fitter(&cache, "t");
  Cancellation cancel;
  cancel.cancel();
  EXPECT_THROW(fitter.fit(table, longBootstrap(&cancel), false), FitCancelled);
  EXPECT_EQ(cache.saves, 0);
}

}  // namespace
}  // namespace deepladder::fitting
