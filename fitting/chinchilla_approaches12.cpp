// Chinchilla Approaches 1 (lower envelope) and 2 (IsoFLOP parabolas); see chinchilla.h.
// Closed-form least squares only, no Ceres.
#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "fitting/chinchilla.h"

namespace deepladder::fitting {
namespace {

// y = intercept + slope x by least squares.
struct Line {
  double slope = kNaN, intercept = kNaN;
};

Line fitLine(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i)
    sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  const double denom = n * sxx - sx * sx;
  if (x.size() < 2 || denom == 0.0) return {};
  Line l;
  l.slope = (n * sxy - sx * sy) / denom;
  l.intercept = (sy - l.slope * sx) / n;
  return l;
}

// L = q0 + q1 t + q2 t^2 by least squares (normal equations, 3x3 Cramer).
bool fitParabola(const std::vector<double>& t, const std::vector<double>& y, double q[3]) {
  double s[5] = {0, 0, 0, 0, 0}, r[3] = {0, 0, 0};
  for (size_t i = 0; i < t.size(); ++i) {
    double p = 1;
    for (int k = 0; k < 5; ++k) {
      s[k] += p;
      if (k < 3) r[k] += p * y[i];
      p *= t[i];
    }
  }
  const double M[3][3] = {{s[0], s[1], s[2]}, {s[1], s[2], s[3]}, {s[2], s[3], s[4]}};
  auto det3 = [](const double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  const double d = det3(M);
  if (std::fabs(d) < 1e-300) return false;
  for (int k = 0; k < 3; ++k) {
    double Mk[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Mk[i][j] = j == k ? r[i] : M[i][j];
    q[k] = det3(Mk) / d;
  }
  return true;
}

void requireSizes(const std::vector<SizePoint>& points, const char* what) {
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (!(p.params > 0) || !(p.tokens > 0) || !(p.loss > 0) || !(p.compute_flops > 0) ||
        !std::isfinite(p.params * p.tokens * p.loss * p.compute_flops))
      throw UserError(std::string(what) + ": point " + std::to_string(i + 1) +
                      " has a non-positive, NaN or infinite value. Fix or drop it");
  }
}

}  // namespace

Approach1Result fitChinchillaApproach1(const std::vector<SizePoint>& points) {
  requireSizes(points, "Chinchilla approach 1");
  std::vector<SizePoint> sorted = points;
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
    return x.compute_flops < y.compute_flops ||
           (x.compute_flops == y.compute_flops && x.loss < y.loss);
  });
  Approach1Result out;
  double best = HUGE_VAL;
  for (const auto& p : sorted)
    if (p.loss < best) {
      best = p.loss;
      out.envelope.push_back({p.compute_flops, p.loss, p.params, p.tokens});
    }
  std::vector<double> lc, ln, ld;
  for (const auto& e : out.envelope) {
    lc.push_back(std::log(e.compute_flops));
    ln.push_back(std::log(e.params));
    ld.push_back(std::log(e.tokens));
  }
  out.a = fitLine(lc, ln).slope;
  out.b = fitLine(lc, ld).slope;
  return out;
}

Approach2Result fitChinchillaApproach2(const std::vector<SizePoint>& points) {
  requireSizes(points, "Chinchilla approach 2");
  std::vector<SizePoint> sorted = points;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& x, const auto& y) { return x.compute_flops < y.compute_flops; });
  // Budgets: runs of points whose compute is within 5% of the group's first point.
  std::vector<std::vector<SizePoint>> groups;
  for (const auto& p : sorted) {
    if (groups.empty() || p.compute_flops > groups.back().front().compute_flops * 1.05)
      groups.emplace_back();
    groups.back().push_back(p);
  }
  Approach2Result out;
  for (const auto& g : groups) {
    std::vector<double> t, y;
    double log_c = 0;
    for (const auto& p : g) {
      t.push_back(std::log(p.params));
      y.push_back(p.loss);
      log_c += std::log(p.compute_flops);
    }
    std::vector<double> distinct = t;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    double q[3];
    if (distinct.size() < 3 || !fitParabola(t, y, q) || !(q[2] > 0)) continue;
    IsoFlopBudget b;
    b.compute_flops = std::exp(log_c / g.size());
    b.n_points = static_cast<int>(g.size());
    const double t_opt = -q[1] / (2 * q[2]);
    b.n_opt = std::exp(t_opt);
    b.d_opt = b.compute_flops / (6.0 * b.n_opt);
    b.loss_min = q[0] + q[1] * t_opt + q[2] * t_opt * t_opt;
    out.budgets.push_back(b);
  }
  if (out.budgets.size() < 2)
    throw UserError("Chinchilla approach 2: " + std::to_string(out.budgets.size()) +
                    " compute budget(s) with >= 3 sizes and a convex loss-vs-ln N parabola; "
                    "need at least 2. Train several sizes per budget (IsoFLOP grid)");
  std::vector<double> lc, ln, ld;
  for (const auto& b : out.budgets) {
    lc.push_back(std::log(b.compute_flops));
    ln.push_back(std::log(b.n_opt));
    ld.push_back(std::log(b.d_opt));
  }
  const Line n_line = fitLine(lc, ln), d_line = fitLine(lc, ld);
  out.a = n_line.slope;
  out.n_coef = std::exp(n_line.intercept);
  out.b = d_line.slope;
  out.d_coef = std::exp(d_line.intercept);
  return out;
}

}  // namespace deepladder::fitting
