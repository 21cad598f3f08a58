// The loss-curve law and its joint Ceres fit (see loss_curve_law.h).
#include "fitting/loss_curve_law.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "fitting/ceres_logging.h"

namespace deepladder::fitting {

CurveLawOptions defaultCurveLawOptions() {
  // prior_misfit: the relative error a prediction is given before its group has min_backtests
  // finished runs to calibrate against. Deliberately wide (3%, ~6 times the goal for a
  // calibrated prediction at half a run), so an uncalibrated interval errs towards covering.
  return CurveLawOptions{};
}

int64_t warmupEnd(const std::vector<double>& rates) {
  if (rates.empty()) return 0;
  const double top = *std::max_element(rates.begin(), rates.end());
  for (size_t i = 0; i < rates.size(); ++i)
    if (rates[i] >= top * (1 - 1e-12)) return static_cast<int64_t>(i);
  return 0;
}

ScheduleAreas scheduleAreas(const std::vector<double>& rates, const CurveLawOptions& options) {
  const size_t total = rates.size();
  ScheduleAreas areas;
  areas.s1.assign(total + 1, 0.0);
  areas.s2.assign(total + 1, 0.0);
  const double memory = std::max(2.0, options.memory_fraction * static_cast<double>(total));
  const double lambda = 1.0 - 1.0 / memory;
  // The warmup's rise is not an anneal (Tissue et al. leave it out of S2): S2 starts at the first
  // update that reaches the run's peak rate.
  const size_t peak = static_cast<size_t>(warmupEnd(rates));
  double momentum = 0;
  for (size_t u = 1; u <= total; ++u) {
    areas.s1[u] = areas.s1[u - 1] + rates[u - 1];
    double step_down = 0;
    if (u >= 2 && u - 1 > peak) step_down = rates[u - 2] - rates[u - 1];
    momentum = lambda * momentum + step_down;
    areas.s2[u] = areas.s2[u - 1] + momentum;
  }
  return areas;
}

CurveLawAreas curveLawAreas(const ScheduleAreas& areas, int64_t crossover, int64_t updates,
                            bool validation) {
  const size_t u =
      static_cast<size_t>(std::clamp<int64_t>(updates, 0, int64_t(areas.s1.size()) - 1));
  CurveLawAreas out;
  out.log_s1 = std::log(std::max(areas.s1[u], 1e-300));
  out.s2 = areas.s2[u];
  if (crossover >= 0 && updates > crossover)
    out.log_s1c = std::log(std::max(areas.s1[static_cast<size_t>(crossover)], 1e-300));
  out.validation = validation;
  return out;
}

CurveLawPoint curveLawPoint(const CurveGroupParameters& group, double l0, double log_a,
                            const CurveLawAreas& at) {
  const double a = std::exp(log_a);
  const double x = std::exp(-group.alpha * at.log_s1);
  double reducible = x, d_alpha = -at.log_s1 * x, d_g = 0;
  if (!std::isnan(at.log_s1c)) {
    const double xc = std::exp(-group.alpha * at.log_s1c);
    reducible = (1 + group.g) * x - group.g * xc;
    d_alpha = -(1 + group.g) * at.log_s1 * x + group.g * at.log_s1c * xc;
    d_g = x - xc;
  }
  CurveLawPoint out;
  out.loss = l0 + a * reducible - group.c * at.s2 + (at.validation ? group.delta : 0.0);
  out.derivative = {1.0, a * reducible, a * d_alpha, -at.s2, a * d_g, at.validation ? 1.0 : 0.0};
  return out;
}

double curveLawLoss(const CurveGroupParameters& group, const CurveRunParameters& run,
                    const ScheduleAreas& areas, int64_t crossover, int64_t updates,
                    bool validation) {
  return curveLawPoint(group, run.l0, std::log(run.a),
                       curveLawAreas(areas, crossover, updates, validation))
      .loss;
}

namespace {

// ---- one run's fitted points -------------------------------------------------------------------
// All of a run's points in one residual block, with the law's derivatives written out
// (curveLawPoint): a block per point made Ceres's per-block bookkeeping and the automatic
// derivatives most of a fit's time (a live ladder fits its arms at every judgement).
struct CurvePoint {
  CurveLawAreas areas;
  double loss, weight;
};

class RunCurveCost final : public ceres::CostFunction {
 public:
  explicit RunCurveCost(std::vector<CurvePoint> points) : points_(std::move(points)) {
    set_num_residuals(static_cast<int>(points_.size()));
    for (int i = 0; i < 6; ++i) mutable_parameter_block_sizes()->push_back(1);
  }

  // Parameter blocks: L0, log A, alpha, C, g, delta.
  bool Evaluate(double const* const* parameters, double* residuals,
                double** jacobians) const override {
    CurveGroupParameters group;
    group.alpha = parameters[2][0];
    group.c = parameters[3][0];
    group.g = parameters[4][0];
    group.delta = parameters[5][0];
    const double l0 = parameters[0][0], log_a = parameters[1][0];
    for (size_t i = 0; i < points_.size(); ++i) {
      const CurvePoint& p = points_[i];
      const CurveLawPoint law = curveLawPoint(group, l0, log_a, p.areas);
      residuals[i] = p.weight * (law.loss - p.loss);
      if (!jacobians) continue;
      for (int b = 0; b < 6; ++b)
        if (jacobians[b]) jacobians[b][i] = p.weight * law.derivative[b];
    }
    return true;
  }

 private:
  std::vector<CurvePoint> points_;
};

// The first update a fit reads: past the warmup's end and skip_fraction of the run (or
// skip_share_of_seen of the updates measured so far, if that comes first).
int64_t firstFittedUpdate(const RunCurve& run, const CurveLawOptions& options) {
  const int64_t total = static_cast<int64_t>(run.rates.size());
  int64_t seen = 0;
  for (const CurveObservation& o : run.points) seen = std::max(seen, o.updates);
  const int64_t skip = static_cast<int64_t>(
      std::ceil(std::min(options.skip_fraction * double(total),
                         options.skip_share_of_seen * double(std::min(seen, total)))));
  return std::max<int64_t>({warmupEnd(run.rates) + 1, skip, 1});
}

// The run's fitted points: validation points as they are, train points averaged into bins of
// equal update width (at their mean update; weight: the batches behind them).
std::vector<CurveObservation> fittedPoints(const RunCurve& run, const CurveLawOptions& options) {
  const int64_t total = static_cast<int64_t>(run.rates.size());
  const int64_t first = firstFittedUpdate(run, options);
  const int64_t width =
      std::max<int64_t>(1, (total - first + options.bins - 1) / std::max(1, options.bins));
  struct Bin {
    double updates = 0, loss = 0, weight = 0;
    int count = 0;
  };
  std::map<int64_t, Bin> bins;
  std::vector<CurveObservation> out;
  for (const CurveObservation& p : run.points) {
    if (p.updates < first || p.updates > total || !std::isfinite(p.loss) || !(p.weight > 0))
      continue;
    if (p.validation) {
      out.push_back(p);
      continue;
    }
    Bin& b = bins[(p.updates - first) / width];
    b.updates += double(p.updates);
    b.loss += p.loss * p.weight;
    b.weight += p.weight;
    b.count += 1;
  }
  for (const auto& [index, b] : bins) {
    (void)index;
    out.push_back({std::lround(b.updates / b.count), b.loss / b.weight, b.weight, false});
  }
  std::sort(out.begin(), out.end(), [](const CurveObservation& a, const CurveObservation& b) {
    return a.updates < b.updates;
  });
  return out;
}

struct PreparedRun {
  const RunCurve* run;
  ScheduleAreas areas;
  std::vector<CurveObservation> points;
  double l0 = 0, log_a = 0;
};

// L0 and A of one run by least squares on S1^-alpha (C = 0): a start for the joint fit.
void startingLine(PreparedRun& p, double alpha) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, sw = 0;
  for (const CurveObservation& o : p.points) {
    const double x = std::pow(std::max(p.areas.s1[size_t(o.updates)], 1e-300), -alpha);
    sx += o.weight * x;
    sy += o.weight * o.loss;
    sxx += o.weight * x * x;
    sxy += o.weight * x * o.loss;
    sw += o.weight;
  }
  const double var = sxx / sw - (sx / sw) * (sx / sw);
  double a = var > 0 ? (sxy / sw - (sx / sw) * (sy / sw)) / var : 0;
  if (!(a > 0)) a = 0.5 * sy / sw / std::max(sx / sw, 1e-12);
  p.log_a = std::log(std::max(a, 1e-12));
  p.l0 = sy / sw - a * sx / sw;
}

struct GroupSolve {
  double cost = HUGE_VAL;
  CurveGroupParameters group;
  std::vector<std::pair<double, double>> runs;  // l0, log_a
  double rms = 0;
  bool converged = false;
};

GroupSolve solveGroup(std::vector<PreparedRun>& runs, CurveGroupParameters start) {
  GroupSolve out;
  std::vector<double> l0(runs.size()), log_a(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    startingLine(runs[i], start.alpha);
    l0[i] = runs[i].l0;
    log_a[i] = runs[i].log_a;
  }
  double alpha = start.alpha, c = start.c, g = start.g, delta = start.delta;
  ceres::Problem problem;
  double weight_sum = 0;
  size_t residuals = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const PreparedRun& p = runs[i];
    const int64_t cross = p.run->crossover;
    std::vector<CurvePoint> points;
    for (const CurveObservation& o : p.points) {
      points.push_back(
          {curveLawAreas(p.areas, cross, o.updates, o.validation), o.loss, std::sqrt(o.weight)});
      weight_sum += o.weight;
    }
    if (points.empty()) continue;
    residuals += points.size();
    problem.AddResidualBlock(new RunCurveCost(std::move(points)), nullptr, &l0[i], &log_a[i],
                             &alpha, &c, &g, &delta);
  }
  if (residuals == 0) return out;
  problem.SetParameterLowerBound(&alpha, 0, 0.02);
  problem.SetParameterUpperBound(&alpha, 0, 3.0);
  problem.SetParameterLowerBound(&c, 0, 0.0);
  problem.SetParameterLowerBound(&g, 0, -0.9);
  problem.SetParameterUpperBound(&g, 0, 50.0);
  if (!start.decay_seen) problem.SetParameterBlockConstant(&c);
  if (!start.growth_seen) problem.SetParameterBlockConstant(&g);
  if (!start.validation_seen) problem.SetParameterBlockConstant(&delta);
  ceres::Solver::Options options;
  // Each point touches its own run's two parameters and the four shared ones: the normal
  // equations are small and sparse, where a dense QR factors the whole Jacobian (points x
  // (2 x runs + 4)) at every iteration. The fits are the same to every printed digit of
  // `predict --backtest`, in less time.
  options.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
  options.max_num_iterations = 200;
  options.logging_type = ceres::SILENT;
  options.num_threads = 1;
  ceres::Solver::Summary summary;
  ceres::Solve(options, &problem, &summary);
  out.cost = summary.final_cost;
  out.converged = summary.termination_type == ceres::CONVERGENCE;
  out.group = start;
  out.group.alpha = alpha;
  out.group.c = c;
  out.group.g = g;
  out.group.delta = delta;
  for (size_t i = 0; i < runs.size(); ++i) out.runs.push_back({l0[i], log_a[i]});
  out.rms = std::sqrt(2.0 * summary.final_cost / std::max(weight_sum, 1e-300));
  return out;
}

}  // namespace

CurveLawFit fitCurveLaw(const std::vector<RunCurve>& runs, const CurveLawOptions& options) {
  quietCeresWarnings();
  CurveLawFit fit;
  fit.converged = true;
  std::map<std::string, std::vector<PreparedRun>> groups;
  for (const RunCurve& run : runs) {
    if (run.rates.empty()) continue;
    PreparedRun p{&run, scheduleAreas(run.rates, options), fittedPoints(run, options)};
    if (p.points.empty()) continue;
    groups[run.group].push_back(std::move(p));
  }
  double sum_sq = 0, count = 0;
  for (auto& [name, prepared] : groups) {
    CurveGroupParameters seen;
    for (const PreparedRun& p : prepared) {
      const RunCurve& r = *p.run;
      const int64_t total = static_cast<int64_t>(r.rates.size());
      const int64_t last = p.points.back().updates;
      const double s2_end = p.areas.s2.back();
      if (s2_end > 0 && p.areas.s2[size_t(last)] >= options.min_decay_seen * s2_end)
        seen.decay_seen = true;
      if (r.crossover >= 0 &&
          double(last) >= double(r.crossover) + std::max(2.0, 0.05 * double(total)))
        seen.growth_seen = true;
      for (const CurveObservation& o : p.points) seen.validation_seen |= o.validation;
    }
    GroupSolve best;
    for (double alpha : {0.5, 0.2, 1.2}) {
      CurveGroupParameters start = seen;
      start.alpha = alpha;
      GroupSolve s = solveGroup(prepared, start);
      if (s.cost < best.cost) best = std::move(s);
    }
    if (!std::isfinite(best.cost)) continue;
    fit.converged = fit.converged && best.converged;
    fit.groups[name] = best.group;
    for (size_t i = 0; i < prepared.size(); ++i)
      fit.runs[prepared[i].run->run_id] = {best.runs[i].first, std::exp(best.runs[i].second)};
    sum_sq += best.rms * best.rms;
    count += 1;
  }
  fit.rms = count > 0 ? std::sqrt(sum_sq / count) : 0.0;
  return fit;
}

std::optional<double> curveLawValidationLoss(const CurveLawFit& fit, const RunCurve& run,
                                             int64_t updates, const CurveLawOptions& options) {
  const auto g = fit.groups.find(run.group);
  const auto r = fit.runs.find(run.run_id);
  if (g == fit.groups.end() || r == fit.runs.end()) return std::nullopt;
  return curveLawLoss(g->second, r->second, scheduleAreas(run.rates, options), run.crossover,
                      updates, /*validation=*/true);
}

}  // namespace deepladder::fitting
