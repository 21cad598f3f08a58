// Ceres fits of L(C) = E + A (C/C0)^-gamma (see frontier_solver.h).
//
// Each arm is one residual block (fitting/arm_residuals.h); the Huber refit is done inside it. All
// residuals are in loss space, r_i = E + A (C_i/C0)^-gamma - L_i, under both estimators. Per fit:
// (1) start: for E on a grid, a log-linear fit ln(L - E) = ln A - gamma ln(C/C0); the start with
// the lowest squared error in L wins. (2) least squares with bounds A, gamma >= 0, 0 <= E < min
// loss. (3) Huber refit with delta = 1.345 sigma, sigma = MAD of the step-2 residuals / 0.6745.
// Robust recipe: 40 grid values of E over [0, min loss); E < min loss (1 - 1e-9); sigma =
// 1.4826 MAD, refit skipped when sigma is ~0 (the data lie on the curve).
// Paper recipe (the growth paper's baseline fit): 600 grid values of E from 0 to 0.995 min loss
// inclusive, starts whose ln(L - E) does not fall with compute skipped; E <= the largest double
// below min loss; sigma = MAD / 0.67448975, delta at least 1e-6, refit always.
// The paper's E-shared arms are not fitted here but by the OLS line (log_excess_line.h).
// Standard errors: cov = s^2 (J^T J)^-1 at the optimum (Ceres Covariance, plain squared loss),
// s^2 = RSS / (n - p).
#include "fitting/frontier_solver.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "fitting/arm_residuals.h"
#include "fitting/ceres_logging.h"
#include "fitting/log_excess_line.h"

namespace deepladder::fitting {
namespace {

struct Params {
  double E = 0.0, A = 0.0, gamma = 0.0;
};

struct PreparedArm {
  std::vector<double> x;  // ln(C/C0)
  std::vector<double> y;  // L
  double min_loss = 0.0;
};

PreparedArm prepare(const ArmData& arm, double c_ref) {
  PreparedArm p;
  for (size_t i = 0; i < arm.compute.size(); ++i) {
    p.x.push_back(std::log(arm.compute[i] / c_ref));
    p.y.push_back(arm.loss[i]);
  }
  p.min_loss = *std::min_element(p.y.begin(), p.y.end());
  return p;
}

double upperE(double min_loss, bool paper) {
  return paper ? std::nextafter(min_loss, 0.0) : min_loss * (1.0 - 1e-9);
}

// --- (1) start ------------------------------------------------------------------------------

// ln(L - E) = ln A - gamma x by least squares; returns the squared error in L.
// Points at or below E (possible when E is fixed from the baseline) are left out of the
// regression; with fewer than two left the start is flat (gamma 0, A = mean excess over E).
// `rising` (when given) says whether the unclamped slope of ln(L - E) is >= 0.
double logLinearStart(const PreparedArm& arm, double E, Params& out, bool* rising = nullptr) {
  const size_t n_all = arm.x.size();
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, excess = 0;
  for (size_t i = 0; i < n_all; ++i) {
    excess += (arm.y[i] - E) / n_all;
    if (!(arm.y[i] > E)) continue;
    const double ly = std::log(arm.y[i] - E);
    n += 1;
    sx += arm.x[i];
    sy += ly;
    sxx += arm.x[i] * arm.x[i];
    sxy += arm.x[i] * ly;
  }
  out.E = E;
  const double denom = n * sxx - sx * sx;
  if (rising) *rising = true;
  if (n < 2 || denom == 0.0) {
    out.gamma = 0.0;
    out.A = std::max(excess, 1e-6);
  } else {
    const double slope = (n * sxy - sx * sy) / denom;
    if (rising) *rising = !(slope < 0.0);
    out.gamma = std::max(0.0, -slope);
    out.A = std::exp((sy + out.gamma * sx) / n);
  }
  double sse = 0;
  for (size_t i = 0; i < n_all; ++i) {
    const double r = E + out.A * std::exp(-out.gamma * arm.x[i]) - arm.y[i];
    sse += r * r;
  }
  return std::isfinite(sse) ? sse : HUGE_VAL;
}

Params gridStart(const PreparedArm& arm, bool E_free, double E_fixed, bool paper) {
  Params best;
  if (!E_free) {
    logLinearStart(arm, E_fixed, best);
    return best;
  }
  if (paper) {
    constexpr int kPaperGrid = 600;
    double best_sse = HUGE_VAL;
    for (int k = 0; k < kPaperGrid; ++k) {
      Params p;
      bool rising = true;
      const double sse =
          logLinearStart(arm, 0.995 * arm.min_loss * k / (kPaperGrid - 1), p, &rising);
      if (!rising && sse < best_sse) best_sse = sse, best = p;
    }
    if (best_sse < HUGE_VAL) return best;  // else no start falls: the robust grid below
  }
  constexpr int kGrid = 40;
  double best_sse = HUGE_VAL;
  for (int k = 0; k < kGrid; ++k) {
    Params p;
    const double sse = logLinearStart(arm, arm.min_loss * k / kGrid, p);
    if (sse < best_sse) best_sse = sse, best = p;
  }
  return best;
}

// --- (2), (3) solves --------------------------------------------------------------------------

ceres::Solver::Options solverOptions() {
  ceres::Solver::Options o;
  o.linear_solver_type = ceres::DENSE_QR;
  o.max_num_iterations = 200;
  o.function_tolerance = 1e-15;
  o.gradient_tolerance = 1e-16;
  o.parameter_tolerance = 1e-14;
  o.logging_type = ceres::SILENT;
  o.num_threads = 1;
  return o;
}

// Aborts a solve once its fit is cancelled (checked after every iteration).
class AbortWhenCancelled : public ceres::IterationCallback {
 public:
  explicit AbortWhenCancelled(const Cancellation* cancel) : cancel_(cancel) {}
  ceres::CallbackReturnType operator()(const ceres::IterationSummary&) override {
    return isCancelled(cancel_) ? ceres::SOLVER_ABORT : ceres::SOLVER_CONTINUE;
  }

 private:
  const Cancellation* cancel_;
};

// Blocks of all arms; E is one block for everyone (constant unless free).
struct Blocks {
  double E = 0.0;
  std::vector<Params> arm;  // A, gamma per arm (E inside unused)
};

// huber_delta[a]: arm a's Huber threshold (0 = plain squares); empty = no Huber anywhere.
void addResiduals(ceres::Problem& problem, const std::vector<PreparedArm>& arms, Blocks& b,
                  bool E_free, double E_upper, const std::vector<double>& huber_delta,
                  const std::vector<int>& which) {
  for (int a : which) {
    const double delta = huber_delta.empty() ? 0.0 : huber_delta[a];
    problem.AddResidualBlock(new ArmResiduals(arms[a].x, arms[a].y, delta), nullptr, &b.E,
                             &b.arm[a].A, &b.arm[a].gamma);
    problem.SetParameterLowerBound(&b.arm[a].A, 0, 0.0);
    problem.SetParameterLowerBound(&b.arm[a].gamma, 0, 0.0);
  }
  if (E_free) {
    problem.SetParameterLowerBound(&b.E, 0, 0.0);
    problem.SetParameterUpperBound(&b.E, 0, E_upper);
  } else {
    problem.SetParameterBlockConstant(&b.E);
  }
}

std::vector<double> residuals(const std::vector<PreparedArm>& arms, const Blocks& b,
                              const std::vector<int>& which) {
  std::vector<double> r;
  for (int a : which)
    for (size_t i = 0; i < arms[a].x.size(); ++i)
      r.push_back(b.E + b.arm[a].A * std::exp(-b.arm[a].gamma * arms[a].x[i]) - arms[a].y[i]);
  return r;
}

double median(std::vector<double> v) {
  const size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  double m = v[n / 2];
  if (n % 2 == 0) m = 0.5 * (m + *std::max_element(v.begin(), v.begin() + n / 2));
  return m;
}

// Robust: delta = 1.345 * 1.4826 * MAD(r); 0 (no refit) when the residuals are negligible.
// Paper: delta = max(1.345 * MAD(r) / 0.67448975, 1e-6).
double huberDelta(const std::vector<double>& r, double loss_scale, bool paper) {
  const double med = median(r);
  std::vector<double> dev;
  for (double v : r) dev.push_back(std::fabs(v - med));
  if (paper) return std::max(1.345 * median(dev) / 0.67448975, 1e-6);
  const double sigma = 1.4826 * median(dev);
  return sigma > 1e-9 * loss_scale ? 1.345 * sigma : 0.0;
}

// Least squares then the Huber refit of the arms in `which`, all in one problem (arms with E
// fixed are independent, so one solve fits them all). The Huber scale comes from each arm's own
// residuals, or from all of them pooled when E is shared and free (`pooled`). Returns the
// deltas used, indexed by arm.
std::vector<double> solveBlocks(const std::vector<PreparedArm>& arms, Blocks& b, bool E_free,
                                double E_upper, const std::vector<int>& which, bool pooled,
                                bool paper, const Cancellation* cancel) {
  if (isCancelled(cancel)) throw FitCancelled();
  auto options = solverOptions();
  AbortWhenCancelled abort_when_cancelled(cancel);
  if (cancel) options.callbacks.push_back(&abort_when_cancelled);
  ceres::Solver::Summary summary;
  {
    ceres::Problem problem;
    addResiduals(problem, arms, b, E_free, E_upper, {}, which);
    ceres::Solve(options, &problem, &summary);
  }
  if (isCancelled(cancel)) throw FitCancelled();
  std::vector<double> deltas(arms.size(), 0.0);
  if (pooled) {
    const double d = huberDelta(residuals(arms, b, which), arms[which[0]].min_loss, paper);
    for (int a : which) deltas[a] = d;
  } else {
    for (int a : which) deltas[a] = huberDelta(residuals(arms, b, {a}), arms[a].min_loss, paper);
  }
  bool any = false;
  for (int a : which) any = any || deltas[a] > 0;
  if (any) {
    ceres::Problem problem;
    addResiduals(problem, arms, b, E_free, E_upper, deltas, which);
    ceres::Solve(options, &problem, &summary);
  }
  if (isCancelled(cancel)) throw FitCancelled();
  return deltas;
}

// --- standard errors ------------------------------------------------------------------------

void standardErrors(const std::vector<PreparedArm>& arms, Blocks& b, bool E_free, double E_upper,
                    const std::vector<int>& which, std::vector<ArmFit>& fits) {
  ceres::Problem problem;
  addResiduals(problem, arms, b, E_free, E_upper, {}, which);
  const auto r = residuals(arms, b, which);
  double rss = 0;
  for (double v : r) rss += v * v;
  const int p = (E_free ? 1 : 0) + 2 * static_cast<int>(which.size());
  const int dof = static_cast<int>(r.size()) - p;
  if (dof <= 0) return;
  const double s2 = rss / dof;
  ceres::Covariance::Options co;
  co.algorithm_type = ceres::DENSE_SVD;
  co.null_space_rank = 0;
  ceres::Covariance covariance(co);
  std::vector<std::pair<const double*, const double*>> blocks;
  if (E_free) blocks.push_back({&b.E, &b.E});
  for (int a : which) {
    blocks.push_back({&b.arm[a].A, &b.arm[a].A});
    blocks.push_back({&b.arm[a].gamma, &b.arm[a].gamma});
  }
  if (!covariance.Compute(blocks, &problem)) return;
  double v = 0;
  double E_se = kNaN;
  if (E_free && covariance.GetCovarianceBlock(&b.E, &b.E, &v)) E_se = std::sqrt(s2 * v);
  for (int a : which) {
    if (E_free) fits[a].E_se = E_se;
    if (covariance.GetCovarianceBlock(&b.arm[a].A, &b.arm[a].A, &v))
      fits[a].A_se = std::sqrt(s2 * v);
    if (covariance.GetCovarianceBlock(&b.arm[a].gamma, &b.arm[a].gamma, &v))
      fits[a].gamma_se = std::sqrt(s2 * v);
  }
}

}  // namespace

// --- public ---------------------------------------------------------------------------------

std::vector<ArmFit> solveFrontier(const std::vector<ArmData>& data, double c_ref, bool joint,
                                  bool with_standard_errors, FrontierEstimator estimator,
                                  const Cancellation* cancel) {
  quietCeresWarnings();
  const bool paper = estimator == FrontierEstimator::Paper;
  joint = joint && !paper;
  std::vector<PreparedArm> arms;
  for (const auto& d : data) arms.push_back(prepare(d, c_ref));
  const int n_arms = static_cast<int>(arms.size());
  Blocks b;
  b.arm.resize(n_arms);

  // Baseline alone (E free), then every other arm with E fixed to the baseline's.
  const Params start = gridStart(arms[0], true, 0.0, paper);
  b.E = start.E;
  b.arm[0] = start;
  std::vector<double> deltas =
      solveBlocks(arms, b, true, upperE(arms[0].min_loss, paper), {0}, false, paper, cancel);
  std::vector<int> others;
  for (int a = 1; a < n_arms; ++a) others.push_back(a);
  std::vector<std::optional<LogExcessLine>> lines(n_arms);
  if (paper) {
    for (int a : others) {
      lines[a] = fitLogExcessLine(data[a].compute, data[a].loss, b.E, c_ref);
      const double nan = std::numeric_limits<double>::quiet_NaN();
      b.arm[a] = lines[a] ? Params{b.E, lines[a]->A, lines[a]->gamma} : Params{b.E, nan, nan};
    }
  } else if (!others.empty()) {
    for (int a : others) b.arm[a] = gridStart(arms[a], false, b.E, false);
    const auto d = solveBlocks(arms, b, false, b.E, others, false, false, cancel);
    for (int a : others) deltas[a] = d[a];
  }
  double global_min = HUGE_VAL;
  for (const auto& arm : arms) global_min = std::min(global_min, arm.min_loss);
  const double E_upper = joint ? upperE(global_min, false) : upperE(arms[0].min_loss, paper);

  std::vector<int> all(n_arms);
  for (int a = 0; a < n_arms; ++a) all[a] = a;
  if (joint) deltas = solveBlocks(arms, b, true, E_upper, all, true, false, cancel);
  int total_points = 0;
  for (const auto& arm : arms) total_points += static_cast<int>(arm.x.size());

  std::vector<ArmFit> fits(n_arms);
  for (int a = 0; a < n_arms; ++a) {
    ArmFit& f = fits[a];
    f.arm = data[a].name;
    f.E_free = joint || a == 0;
    f.E = b.E;
    f.A = b.arm[a].A;
    f.gamma = b.arm[a].gamma;
    f.n_points = static_cast<int>(arms[a].x.size());
    f.dof = joint ? total_points - 1 - 2 * n_arms : f.n_points - (f.E_free ? 3 : 2);
    f.huber_delta = deltas[a];
    double rss = 0;
    for (double r : residuals(arms, b, {a})) rss += r * r;
    f.rss = rss;
    f.rms = std::sqrt(rss / f.n_points);
    if (lines[a]) {
      f.gamma_se = lines[a]->slope_se;
      f.A_se = lines[a]->A_se;
    }
    if (f.E_free) {
      const double scale = arms[a].min_loss;
      if (f.E <= 1e-9 * scale) f.at_bound.push_back("E=0");
      if (f.E >= E_upper - 1e-7 * scale) f.at_bound.push_back("E=min loss");
    }
    if (!f.E_free && arms[a].min_loss <= f.E) f.at_bound.push_back("E>=arm min loss");
    if (f.A <= 1e-12) f.at_bound.push_back("A=0");
    if (f.gamma <= 1e-9) f.at_bound.push_back("gamma=0");
  }
  if (with_standard_errors) {
    if (joint) {
      standardErrors(arms, b, true, E_upper, all, fits);
    } else {
      standardErrors(arms, b, true, E_upper, {0}, fits);
      if (!paper)
        for (int a = 1; a < n_arms; ++a) standardErrors(arms, b, false, b.E, {a}, fits);
    }
  }
  return fits;
}

}  // namespace deepladder::fitting
