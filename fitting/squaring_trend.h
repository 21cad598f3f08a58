// What a squaring ladder (task = "squaring") is fitted on: per arm, the finished runs' training
// compute C against their depth generalization, and a straight line against log compute where
// the runs allow one (ordinary least squares, closed form; no Ceres needed):
//   OOD exact match:      ood_exact(C)  = a + b log10(C / C0)
//   depth rungs cleared:  rungs_seen(C) = a + b log10(C / C0)
// where rungs_seen counts the depth-ladder rungs T = 1, 2, 4, ... cleared at 100% on the training
// moduli (Max T 0 -> 0 rungs, 1 -> 1, 2 -> 2, 4 -> 3, ..., 64 -> 7), so b reads "OOD accuracy
// (or rungs) gained per decade of compute". Max T itself lives on a doubling ladder and is shown,
// not fitted. A line needs two distinct computes; standard errors need three.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace deepladder::fitting {

// One finished squaring run (from storage::squaringPoints or constructed in tests).
struct SquaringRunPoint {
  std::string arm;
  int64_t run_id = 0;
  double compute = 0;  // training FLOPs
  int64_t max_t_seen = 0;
  int64_t max_t_unseen = 0;
  double ood_exact = 0;
  double test_exact = 0;
  // Under the benchmark's rules (core/options/admissibility.h): false when the run's options
  // make training targets from the task's algorithm, named in inadmissible_options.
  bool admissible = true;
  std::string inadmissible_options;
};

// y = a + b log10(C / c_ref) by ordinary least squares.
struct LogComputeTrend {
  bool defined = false;  // at least two distinct computes
  int64_t points = 0;
  double a = NAN;     // y at C = c_ref
  double b = NAN;     // change of y per decade of compute
  double a_se = NAN;  // sqrt(s^2 (1/n + xbar^2 / Sxx)), s^2 = SSE / (n - 2); NaN for n < 3
  double b_se = NAN;  // sqrt(s^2 / Sxx); NaN for n < 3
  double r2 = NAN;    // 1 - SSE / SST; NaN when every y is equal
  // The compute where the line reaches `target` (c_ref 10^((target - a) / b)); NaN when b <= 0.
  double computeReaching(double target, double c_ref) const;
};

struct SquaringArmSummary {
  std::string arm;
  std::vector<SquaringRunPoint> runs;  // by compute
  LogComputeTrend ood_exact;           // ood_exact against log10(C / c_ref)
  LogComputeTrend rungs_seen;          // depthRungsCleared(max_t_seen) against log10(C / c_ref)
};

struct SquaringLadderSummary {
  double c_ref = 1e15;                   // C0
  std::vector<SquaringArmSummary> arms;  // by arm name
};

// Rungs of the doubling depth ladder cleared for a Max T: 0 -> 0, 1 -> 1, 2 -> 2, 4 -> 3, ...
int64_t depthRungsCleared(int64_t max_t);

LogComputeTrend fitLogComputeTrend(const std::vector<double>& compute,
                                   const std::vector<double>& values, double c_ref);

// Groups runs by arm and fits both trends. Throws UserError for no runs or a compute <= 0.
SquaringLadderSummary summarizeSquaringLadder(std::vector<SquaringRunPoint> runs, double c_ref);

}  // namespace deepladder::fitting
