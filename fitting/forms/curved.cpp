// The form "curved": L(C) = E + A exp(-gamma x - delta x^2), x = ln(C/C0): the power law with a
// curvature term, ln(L - E) quadratic in ln C (the quadratic the old curvature diagnostic fitted).
// delta > 0: the log-log slope steepens with compute; delta < 0: it flattens, as on ladders whose
// errors grow with extrapolation. E is the baseline's power-law E (fitted as the power law fits
// it, --estimator; profiling E together with delta was tried and is degenerate over two or three
// decades: a flattening slope and a higher E draw the same curve); every arm, the baseline
// included, is then the least-squares quadratic of ln(L - E) on x, 4 rungs each at least.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fitting/fit_form.h"
#include "fitting/forms/builtin_forms.h"
#include "fitting/frontier_estimator.h"
#include "fitting/frontier_solver.h"

namespace deepladder::fitting {
namespace {

struct Quadratic {
  double b[3] = {kNaN, kNaN, kNaN};   // y = b0 + b1 x + b2 x^2
  double se[3] = {kNaN, kNaN, kNaN};  // sqrt(s^2 (X'X)^-1_jj), s^2 = rss / (n - 3)
  int dof = 0;
};

// Least squares of y on (1, x, x^2); false when the design is singular (fewer than 3 distinct x).
bool fitQuadratic(const std::vector<double>& x, const std::vector<double>& y, Quadratic& q) {
  const size_t n = x.size();
  double m[3][3] = {}, r[3] = {};
  for (size_t i = 0; i < n; ++i) {
    const double f[3] = {1, x[i], x[i] * x[i]};
    for (int a = 0; a < 3; ++a) {
      r[a] += f[a] * y[i];
      for (int c = 0; c < 3; ++c) m[a][c] += f[a] * f[c];
    }
  }
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  if (!(std::fabs(det) > 1e-300)) return false;
  double inv[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      inv[i][j] = (m[i1][j1] * m[i2][j2] - m[i1][j2] * m[i2][j1]) / det;
    }
  for (int a = 0; a < 3; ++a) {
    q.b[a] = 0;
    for (int c = 0; c < 3; ++c) q.b[a] += inv[a][c] * r[c];
  }
  q.dof = static_cast<int>(n) - 3;
  if (q.dof > 0) {
    double rss = 0;
    for (size_t i = 0; i < n; ++i) {
      const double e = y[i] - q.b[0] - q.b[1] * x[i] - q.b[2] * x[i] * x[i];
      rss += e * e;
    }
    for (int a = 0; a < 3; ++a) q.se[a] = std::sqrt(rss / q.dof * inv[a][a]);
  }
  return true;
}

class CurvedForm : public FitForm {
 public:
  std::string name() const override { return "curved"; }
  std::string formula(const FrontierOptions& o) const override {
    char c0[32];
    std::snprintf(c0, sizeof c0, "%g", o.c_ref);
    return std::string("L(C) = E + A exp(-gamma x - delta x^2), x = ln(C/") + c0 + ")";
  }
  std::string description(const FrontierOptions& o) const override {
    return "curved: E from the baseline's power-law fit (" + estimatorName(o.estimator) +
           " estimator); every arm by OLS of ln(L - E) on x and x^2";
  }
  std::vector<std::string> extraParameters() const override { return {"delta"}; }
  std::vector<ArmFit> solve(const std::vector<ArmData>& arms, const FrontierOptions& o,
                            bool point) const override {
    const double E =
        solveFrontier({arms.front()}, o.c_ref, false, false, o.estimator, o.cancellation).front().E;
    std::vector<ArmFit> fits;
    for (size_t a = 0; a < arms.size(); ++a) {
      const ArmData& arm = arms[a];
      ArmFit f;
      f.arm = arm.name;
      f.E = E;
      f.E_free = a == 0;
      f.n_points = static_cast<int>(arm.compute.size());
      std::vector<double> x, y;
      bool above = true;
      for (size_t i = 0; i < arm.compute.size(); ++i) {
        above = above && arm.loss[i] > E;
        x.push_back(std::log(arm.compute[i] / o.c_ref));
        y.push_back(std::log(arm.loss[i] - E));
      }
      Quadratic q;
      if (!above || !fitQuadratic(x, y, q)) {
        f.no_fit = "arm " + arm.name +
                   (above ? ": no curved fit: fewer than 3 distinct computes"
                          : ": no curved fit: a loss at or below the baseline's E");
        if (point) {
          fits.push_back(f);
          continue;
        }
        throw std::runtime_error(f.no_fit);
      }
      f.A = std::exp(q.b[0]);
      f.gamma = -q.b[1];
      f.extra = {-q.b[2]};
      f.A_se = f.A * q.se[0];
      f.gamma_se = q.se[1];
      f.extra_se = {q.se[2]};
      f.dof = q.dof - (a == 0 ? 1 : 0);
      double rss = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const double e = arm.loss[i] - loss(f.E, f.A, f.gamma, f.extra, x[i]);
        rss += e * e;
      }
      f.rss = rss;
      f.rms = std::sqrt(rss / std::max<size_t>(1, x.size()));
      fits.push_back(f);
    }
    return fits;
  }
  double loss(double E, double A, double gamma, const std::vector<double>& extra,
              double x) const override {
    const double delta = extra.empty() ? 0.0 : extra[0];
    return E + A * std::exp(-gamma * x - delta * x * x);
  }
  double slope(double, double A, double gamma, const std::vector<double>& extra,
               double x) const override {
    const double delta = extra.empty() ? 0.0 : extra[0];
    return -(gamma + 2 * delta * x) * A * std::exp(-gamma * x - delta * x * x);
  }
};

}  // namespace

std::unique_ptr<FitForm> makeCurvedForm() {
  return std::make_unique<CurvedForm>();
}

}  // namespace deepladder::fitting
