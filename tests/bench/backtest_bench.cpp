// Backtest benchmark: what `deepladder fit --backtest 3 --bootstrap 1000` costs on the growth
// paper's ladder, and how often a backtest's 95% intervals cover the held-out rungs of simulated
// ladders.
//
// Timing: the paper's eight-arm FineWeb ladder (tests/fitting/data/paper_fineweb_ladders.csv),
// paper estimator, run bootstrap, 2 threads: the plain fit (`fit --bootstrap 1000`) and the fit
// plus its backtest (`fit --backtest 3 --bootstrap 1000`), wall and process CPU seconds, best of
// --repeats (default 3). The command adds reading the CSV and printing (milliseconds).
// Coverage: simulated ladders with the live-ladder benchmark's truths (tests/bench/
// live_ladder_bench.cpp, truthFromPublished: the published vanilla and untied_grow runs fitted by
// the paper estimator, each arm's residual scatter s = sqrt(rss / (n - p)) as Gaussian noise on
// every run's loss), on the published rungs, one seed. Each ladder is backtested with K = 3 and
// --bootstraps resamples (default 200) per refit, once resampling runs (`fit`'s bootstrap) and
// once residuals (the live projection's); coverage: held-out rungs whose interval held the
// measured loss, and also the true L(C) (the interval is one of the fitted curve).
// Goal (judged in smoke mode too): every simulated ladder backtests (none throws).
// Usage: backtest_bench [--ladders N] [--bootstraps B] [--repeats R] [--quick] [--smoke]
// (--smoke: 4 ladders, 20 resamples, one repeat of a 100-resample fit: seconds)
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "fitting/backtest.h"
#include "fitting/frontier_fit.h"
#include "fitting/frontier_model.h"
#include "fitting/results_csv.h"
#include "tests/bench/bench_goals.h"
#include "tests/fitting/published_growth_ladder.h"

using namespace deepladder;
using namespace deepladder::fitting;

namespace {

double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Timing {
  double wall = 1e300, cpu = 1e300;
};

template <typename F>
Timing best(int repeats, F f) {
  Timing t;
  for (int i = 0; i < repeats; ++i) {
    const double c0 = cpuSeconds();
    const auto w0 = std::chrono::steady_clock::now();
    f();
    t.wall = std::min(t.wall,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
    t.cpu = std::min(t.cpu, cpuSeconds() - c0);
  }
  return t;
}

// live_ladder_bench's truth: the published vanilla and untied_grow fitted by the paper estimator.
struct Truth {
  double E = 0, c_ref = 1e18;
  std::map<std::string, std::pair<double, double>> law;  // arm -> (A, gamma)
  std::map<std::string, double> scatter;                 // arm -> s
};

Truth truthFromPublished() {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = 0;
  const FrontierResult fit = fitFrontier(testing::publishedTable(), o);
  Truth t;
  t.E = fit.arms[0].E;
  for (const auto& a : fit.arms) {
    t.law[a.arm] = {a.A, a.gamma};
    t.scatter[a.arm] = std::sqrt(a.rss / (a.n_points - (a.E_free ? 3 : 2)));
  }
  return t;
}

double trueLoss(const Truth& t, const std::string& arm, double compute) {
  return frontierLoss(compute, t.c_ref, t.E, t.law.at(arm).first, t.law.at(arm).second);
}

ResultsTable simulatedLadder(const Truth& t, int sim) {
  ResultsTable table;
  table.source = "sim";
  for (const auto& r : testing::publishedGrowthLadder()) {
    std::seed_seq seq{static_cast<unsigned>(sim), static_cast<unsigned>(r.depth), 1u,
                      static_cast<unsigned>(r.arm.size()), static_cast<unsigned>(r.arm[0])};
    std::mt19937_64 rng(seq);
    std::normal_distribution<double> z(0.0, 1.0);
    RunPoint p;
    p.arm = r.arm;
    p.compute_flops = r.compute_flops;
    p.val_loss = trueLoss(t, r.arm, r.compute_flops) + t.scatter.at(r.arm) * z(rng);
    table.points.push_back(p);
  }
  return table;
}

int printCoverage(const Truth& t, int ladders, int bootstraps, bool residuals) {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = bootstraps;
  o.residual_bootstrap = residuals;
  std::map<int, std::pair<int, int>> measured, curve;  // k -> (covered, intervals)
  std::map<int, double> abs_error;
  int failed = 0;
  for (int sim = 0; sim < ladders; ++sim) {
    BacktestResult r;
    try {
      r = backtestFrontier(simulatedLadder(t, sim), o, 3);
    } catch (const std::exception&) {
      ++failed;
      continue;
    }
    for (const auto& p : r.points) {
      if (!p.has_interval) continue;
      const double truth = trueLoss(t, p.arm, p.compute);
      measured[p.k].first += p.covered, measured[p.k].second += 1;
      curve[p.k].first += p.lo <= truth && truth <= p.hi, curve[p.k].second += 1;
      abs_error[p.k] += std::fabs(p.rel_error);
    }
  }
  int m_cov = 0, m_n = 0, c_cov = 0, c_n = 0;
  for (const auto& [k, c] : measured) {
    std::printf(
        "  %-9s k=%d: measured loss covered %5.1f%% (%d of %d), true L(C) covered %5.1f%%, "
        "mean |error| %.3f%%\n",
        residuals ? "residuals" : "runs", k, 100.0 * c.first / c.second, c.first, c.second,
        100.0 * curve[k].first / curve[k].second, 100 * abs_error[k] / c.second);
    m_cov += c.first, m_n += c.second, c_cov += curve[k].first, c_n += curve[k].second;
  }
  std::printf("  %-9s all: measured loss covered %5.1f%% (%d of %d), true L(C) covered %5.1f%%%s\n",
              residuals ? "residuals" : "runs", 100.0 * m_cov / std::max(1, m_n), m_cov, m_n,
              100.0 * c_cov / std::max(1, c_n),
              failed ? (" (" + std::to_string(failed) + " ladders failed)").c_str() : "");
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals goals(deepladder::bench::takeSmokeFlag(argc, argv));
  int ladders = 200, bootstraps = 200, repeats = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--ladders") && i + 1 < argc) ladders = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--bootstraps") && i + 1 < argc) bootstraps = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--quick")) ladders = 10, repeats = 1;
  }
  if (goals.smoke()) ladders = 4, bootstraps = 20, repeats = 1;
  const ResultsTable paper = readResultsCsv(std::string(DEEPLADDER_SOURCE_DIR) +
                                            "/tests/fitting/data/paper_fineweb_ladders.csv");
  FrontierOptions o = defaultFrontierOptions();  // paper estimator, 1000 resamples, 2 threads
  if (goals.smoke()) o.bootstrap = 100;
  const Timing fit = best(repeats, [&] { fitFrontier(paper, o); });
  const Timing with_backtest = best(repeats, [&] {
    fitFrontier(paper, o);
    backtestFrontier(paper, o, 3);
  });
  std::printf(
      "paper ladder (%zu runs, 8 arms), --bootstrap %d, %d threads, best of %d:\n"
      "  fit                : %.3f s wall, %.3f s CPU\n"
      "  fit --backtest 3   : %.3f s wall, %.3f s CPU (%.2fx the fit's wall time)\n",
      paper.points.size(), o.bootstrap, o.threads, repeats, fit.wall, fit.cpu, with_backtest.wall,
      with_backtest.cpu, with_backtest.wall / fit.wall);

  const Truth t = truthFromPublished();
  std::printf(
      "coverage of 95%% backtest intervals, K = 3, %d simulated ladders (live_ladder_bench's "
      "truths: E %.4f, vanilla s %.4f, untied_grow s %.4f), %d resamples per refit:\n",
      ladders, t.E, t.scatter.at("vanilla"), t.scatter.at("untied_grow"), bootstraps);
  const int failed = printCoverage(t, ladders, bootstraps, /*residuals=*/false) +
                     printCoverage(t, ladders, bootstraps, /*residuals=*/true);
  goals.holds("every simulated ladder backtests (" + std::to_string(failed) + " failed)",
              failed == 0);
  return goals.exitCode();
}
