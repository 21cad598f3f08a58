// Fitting benchmark, measured in one run:
// 1. frontier fit of 8 arms x 8 rungs with 1000 bootstrap resamples (target < 1 s), once with
//    each estimator (paper: baseline Huber + OLS lines; robust: nonlinear least squares + Huber
//    for every arm), every resample refitted with the same estimator;
// 2. Chinchilla Approach 3, 4,500-start grid on 240 points (target < 5 s), side by side with
//    scipy.optimize.minimize(method='L-BFGS-B') on the same objective, starts and points
//    (tests/bench/fitting_bench_scipy.py in /usr/bin/python3): both times, the speed ratio
//    (target >= 10x) and the relative difference of the best objectives (must be <= 1e-6).
// Data: synthetic, seeded. Frontier arms share E = 1.8 with gammas 0.100..0.135 and 0.3% loss
// noise; Chinchilla points from Hoffmann et al. (2022) parameters with 1% loss noise.
// Exit status 1 when a goal is missed (bench_goals.h), the objectives disagree or scipy cannot run.
// --smoke: 100 resamples, 60 of the 240 points, no scipy (seconds; timing goals not judged).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "fitting/chinchilla.h"
#include "fitting/frontier_fit.h"
#include "fitting/frontier_model.h"
#include "tests/bench/bench_goals.h"

using namespace deepladder::fitting;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Process CPU seconds (all threads): the fair figure when other jobs share the cores.
double cpuSecondsSince(std::clock_t c0) {
  return double(std::clock() - c0) / CLOCKS_PER_SEC;
}

ResultsTable eightByEight() {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> gauss(0.0, 1.0);
  ResultsTable t;
  t.source = "bench";
  for (int a = 0; a < 8; ++a)
    for (int i = 0; i < 8; ++i) {
      RunPoint p;
      p.arm = a == 0 ? "vanilla" : "arm" + std::to_string(a);
      p.compute_flops = 1e17 * std::pow(10.0, 0.5 * i);
      p.val_loss = frontierLoss(p.compute_flops, 1e18, 1.8, 1.2 - 0.01 * a, 0.100 + 0.005 * a) *
                   (1.0 + 0.003 * gauss(rng));
      t.points.push_back(p);
    }
  return t;
}

std::vector<SizePoint> chinchilla240() {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<SizePoint> pts;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 15; ++j) {
      const double n = 1e7 * std::pow(10.0, 0.2 * i), d = 1e9 * std::pow(10.0, 0.2 * j);
      const double loss = 1.69 + 406.4 / std::pow(n, 0.34) + 410.7 / std::pow(d, 0.28);
      pts.push_back({n, d, loss * (1.0 + 0.01 * gauss(rng)), 6 * n * d});
    }
  return pts;
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals goals(deepladder::bench::takeSmokeFlag(argc, argv));
  // --no-scipy: only the C++ figures (quick runs while tuning).
  const bool run_scipy = !goals.smoke() && !(argc > 1 && std::string(argv[1]) == "--no-scipy");
  const int resamples = goals.smoke() ? 100 : 1000;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // figures appear as they are measured
  // --- 1. frontier ---------------------------------------------------------------------------
  const ResultsTable ladder = eightByEight();
  std::chrono::steady_clock::time_point t0;
  std::clock_t c0;
  for (const FrontierEstimator estimator : {FrontierEstimator::Paper, FrontierEstimator::Robust}) {
    FrontierOptions options = defaultFrontierOptions();
    options.estimator = estimator;
    options.bootstrap = resamples;
    t0 = std::chrono::steady_clock::now();
    c0 = std::clock();
    const FrontierResult frontier = fitFrontier(ladder, options);
    const double frontier_s = secondsSince(t0), frontier_cpu = cpuSecondsSince(c0);
    std::printf(
        "frontier fit, estimator %s, 8 arms x 8 rungs, %d bootstrap resamples (%d threads): "
        "%.3f s wall, %.3f s cpu, %d/%d resamples used\n",
        estimatorName(estimator).c_str(), resamples, options.threads, frontier_s, frontier_cpu,
        frontier.bootstrap_used, frontier.bootstrap_requested);
    goals.below("frontier fit (" + estimatorName(estimator) + "), 1000 resamples", frontier_s, 1.0,
                "s");
    goals.atLeast("frontier fit (" + estimatorName(estimator) + ") resamples used",
                  frontier.bootstrap_used, 0.95 * resamples, "",
                  deepladder::bench::GoalKind::kCorrectness);
  }

  // --- 2. Chinchilla Approach 3 vs scipy ------------------------------------------------------
  auto points = chinchilla240();
  if (goals.smoke()) {  // every 4th point: 60
    std::vector<SizePoint> fewer;
    for (size_t i = 0; i < points.size(); i += 4) fewer.push_back(points[i]);
    points = fewer;
  }
  const std::string csv = std::string(DEEPLADDER_BINARY_DIR) + "/fitting_bench_points.csv";
  {
    std::ofstream out(csv);
    out.precision(17);
    out << "params,tokens,loss\n";
    for (const auto& p : points) out << p.params << ',' << p.tokens << ',' << p.loss << '\n';
  }
  t0 = std::chrono::steady_clock::now();
  c0 = std::clock();
  const ChinchillaFit fit = fitChinchillaApproach3(points);
  const double ceres_s = secondsSince(t0), ceres_cpu = cpuSecondsSince(c0);
  std::printf(
      "chinchilla approach 3, 4500 starts, %zu points, ceres L-BFGS (%d threads): %.3f s "
      "wall, %.3f s cpu, best objective %.12g, %d/%d starts converged\n",
      points.size(), defaultChinchillaOptions().threads, ceres_s, ceres_cpu, fit.objective,
      fit.converged, fit.starts);
  goals.below("chinchilla approach 3, 240 points", ceres_s, 5.0, "s");
  // The best start is at least as good as the law the points were drawn from.
  LseParams truth;
  truth.a = std::log(406.4), truth.b = std::log(410.7), truth.e = std::log(1.69);
  truth.alpha = 0.34, truth.beta = 0.28;
  const double at_truth =
      chinchillaObjective(points, truth, defaultChinchillaOptions().huber_delta);
  goals.atMost("chinchilla best objective / objective at the true law", fit.objective / at_truth,
               1.0, "", deepladder::bench::GoalKind::kCorrectness);
  std::printf("  fitted E %.4f A %.2f B %.2f alpha %.4f beta %.4f a %.4f b %.4f\n", fit.E, fit.A,
              fit.B, fit.alpha, fit.beta, fit.a, fit.b);

  if (!run_scipy) return goals.exitCode();
  const std::string json_out = std::string(DEEPLADDER_BINARY_DIR) + "/fitting_bench_scipy.json";
  const std::string command = "/usr/bin/python3 " + std::string(DEEPLADDER_SOURCE_DIR) +
                              "/tests/bench/fitting_bench_scipy.py " + csv + " > " + json_out;
  if (std::system(command.c_str()) != 0) {
    std::printf("scipy baseline failed to run: %s\n", command.c_str());
    goals.holds("scipy baseline runs", false);
    return goals.exitCode();
  }
  std::ifstream in(json_out);
  const auto scipy = nlohmann::json::parse(in);
  const double scipy_s = scipy.at("seconds").get<double>();
  const double scipy_cpu = scipy.at("cpu_seconds").get<double>();
  const double scipy_best = scipy.at("best_objective").get<double>();
  const double rel = std::fabs(fit.objective - scipy_best) / std::fabs(scipy_best);
  std::printf(
      "chinchilla approach 3, scipy L-BFGS-B (1 process, same starts and objective): "
      "%.3f s wall, %.3f s cpu, best objective %.12g, %d/%d starts converged\n",
      scipy_s, scipy_cpu, scipy_best, scipy.at("converged").get<int>(),
      scipy.at("starts").get<int>());
  std::printf("speed ratio scipy / ceres: %.1fx wall, %.1fx cpu\n", scipy_s / ceres_s,
              scipy_cpu / ceres_cpu);
  goals.atLeast("speed ratio scipy / ceres (wall)", scipy_s / ceres_s, 10.0, "x");
  goals.atMost("relative difference of best objectives", rel, 1e-6, "",
               deepladder::bench::GoalKind::kCorrectness);
  return goals.exitCode();
}
