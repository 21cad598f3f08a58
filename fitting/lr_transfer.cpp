// Learning-rate transfer: per-rung optima and their drift with size (see lr_transfer.h).
#include "fitting/lr_transfer.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "core/ladder/sweep.h"
#include "fitting/json_number.h"
#include "fitting/student_t.h"

namespace deepladder::fitting {
namespace {

struct RungData {
  std::string arm, size, axis;
  double params = kNaN;
  std::vector<double> x, y;  // ln(value), mean loss over seeds
};

// Least squares y ~ X b: coefficients, (X'X)^-1, residual sum of squares.
struct Ols {
  Eigen::VectorXd b;
  Eigen::MatrixXd inverse;
  double ssr = 0;
  bool ok = false;
};

Ols leastSquares(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  Ols out;
  const Eigen::MatrixXd xtx = x.transpose() * x;
  Eigen::FullPivLU<Eigen::MatrixXd> lu(xtx);
  if (!lu.isInvertible()) return out;
  out.inverse = lu.inverse();
  out.b = out.inverse * (x.transpose() * y);
  out.ssr = (y - x * out.b).squaredNorm();
  out.ok = out.b.allFinite();
  return out;
}

std::string formatted(double v, const char* format = "%.3g") {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

// The rungs of the table swept over exactly one numeric axis, by arm then N.
std::vector<RungData> sweptRungs(const ResultsTable& table) {
  struct Sum {
    double loss = 0;
    int count = 0;
  };
  std::map<std::pair<std::string, std::string>, std::map<std::string, Sum>> by_rung;
  std::map<std::pair<std::string, std::string>, std::pair<double, int>> params;
  for (const RunPoint& p : table.points) {
    if (p.sweep.empty() || !std::isfinite(p.val_loss)) continue;
    Sum& s = by_rung[{p.arm, p.size}][p.sweep];
    s.loss += p.val_loss;
    s.count += 1;
    if (std::isfinite(p.params)) {
      auto& n = params[{p.arm, p.size}];
      n.first += p.params;
      n.second += 1;
    }
  }
  std::vector<RungData> out;
  for (const auto& [rung, points] : by_rung) {
    RungData r;
    r.arm = rung.first;
    r.size = rung.second;
    if (const auto it = params.find(rung); it != params.end())
      r.params = it->second.first / it->second.second;
    bool one_axis = true;
    for (const auto& [label, sum] : points) {
      const auto parsed = ladder::parseSweepLabel(label);
      const double v = parsed.size() == 1 ? ladder::sweepValueNumber(parsed[0].second) : kNaN;
      if (parsed.size() != 1 || !(v > 0) || (!r.axis.empty() && r.axis != parsed[0].first)) {
        one_axis = false;
        break;
      }
      r.axis = parsed[0].first;
      r.x.push_back(std::log(v));
      r.y.push_back(sum.loss / sum.count);
    }
    if (one_axis && !r.x.empty()) out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const RungData& a, const RungData& b) {
    return a.arm != b.arm ? a.arm < b.arm : a.params < b.params;
  });
  return out;
}

// The arm's drift model over its rungs with >= 3 values: noise variance, dof, slope and its se.
struct DriftFit {
  double sigma2 = kNaN;
  int dof = 0;
  double slope = kNaN, slope_se = kNaN;
};

DriftFit driftFit(const std::vector<const RungData*>& rungs) {
  DriftFit out;
  const int r_count = static_cast<int>(rungs.size());
  int n = 0;
  double mean_z = 0;
  for (const RungData* r : rungs) {
    n += static_cast<int>(r->x.size());
    mean_z += std::log(r->params) / r_count;
  }
  const int columns = r_count + 3;  // a_r..., b0, b1, c
  out.dof = n - columns;
  if (r_count < 2 || out.dof <= 0) return out;
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, columns);
  Eigen::VectorXd y(n);
  int row = 0;
  for (int k = 0; k < r_count; ++k) {
    const double z = std::log(rungs[size_t(k)]->params) - mean_z;
    for (size_t i = 0; i < rungs[size_t(k)]->x.size(); ++i, ++row) {
      const double xi = rungs[size_t(k)]->x[i];
      x(row, k) = 1;
      x(row, r_count) = xi;
      x(row, r_count + 1) = z * xi;
      x(row, r_count + 2) = xi * xi;
      y(row) = rungs[size_t(k)]->y[i];
    }
  }
  const Ols fit = leastSquares(x, y);
  if (!fit.ok) return out;
  out.sigma2 = fit.ssr / out.dof;
  const double b1 = fit.b(r_count + 1), c = fit.b(r_count + 2);
  if (!(c > 0)) return out;
  out.slope = -b1 / (2 * c);
  // delta method: ds/db1 = -1/(2c), ds/dc = b1/(2c^2)
  Eigen::Vector2d grad(-1.0 / (2 * c), b1 / (2 * c * c));
  Eigen::Matrix2d cov;
  cov << fit.inverse(r_count + 1, r_count + 1), fit.inverse(r_count + 1, r_count + 2),
      fit.inverse(r_count + 2, r_count + 1), fit.inverse(r_count + 2, r_count + 2);
  out.slope_se = std::sqrt(out.sigma2 * grad.dot(cov * grad));
  return out;
}

}  // namespace

LrTransfer learningRateTransfer(const ResultsTable& table) {
  LrTransfer out;
  const std::vector<RungData> rungs = sweptRungs(table);
  std::map<std::string, std::vector<const RungData*>> by_arm;
  for (const RungData& r : rungs)
    if (r.x.size() >= 3 && std::isfinite(r.params) && r.params > 0) by_arm[r.arm].push_back(&r);
  std::map<std::string, DriftFit> drift;
  for (const auto& [arm, list] : by_arm) drift[arm] = driftFit(list);

  for (const RungData& r : rungs) {
    RungOptimum o;
    o.arm = r.arm;
    o.size = r.size;
    o.axis = r.axis;
    o.params = r.params;
    o.values = static_cast<int>(r.x.size());
    if (r.x.size() < 3) {
      o.note = "fewer than 3 values";
      out.rungs.push_back(std::move(o));
      continue;
    }
    Eigen::MatrixXd x(r.x.size(), 3);
    Eigen::VectorXd y(r.x.size());
    for (size_t i = 0; i < r.x.size(); ++i) {
      x(i, 0) = 1;
      x(i, 1) = r.x[i];
      x(i, 2) = r.x[i] * r.x[i];
      y(i) = r.y[i];
    }
    const Ols fit = leastSquares(x, y);
    if (!fit.ok || !(fit.b(2) > 0)) {
      o.note = "the loss is not convex in ln " + r.axis + ": no minimum";
      out.rungs.push_back(std::move(o));
      continue;
    }
    const double b1 = fit.b(1), b2 = fit.b(2);
    const double xstar = -b1 / (2 * b2);
    o.fitted = true;
    o.optimum = std::exp(xstar);
    o.min_loss = fit.b(0) + b1 * xstar + b2 * xstar * xstar;
    o.inside = xstar >= *std::min_element(r.x.begin(), r.x.end()) &&
               xstar <= *std::max_element(r.x.begin(), r.x.end());
    // Noise: the arm's pooled variance, else this rung's own when it has spare points.
    double sigma2 = kNaN;
    int dof = 0;
    if (const auto it = drift.find(r.arm); it != drift.end() && it->second.dof > 0) {
      sigma2 = it->second.sigma2;
      dof = it->second.dof;
    } else if (r.x.size() > 3) {
      dof = static_cast<int>(r.x.size()) - 3;
      sigma2 = fit.ssr / dof;
    }
    if (std::isfinite(sigma2) && dof > 0) {
      Eigen::Vector2d grad(-1.0 / (2 * b2), b1 / (2 * b2 * b2));
      Eigen::Matrix2d cov = fit.inverse.block(1, 1, 2, 2);
      const double se = std::sqrt(sigma2 * grad.dot(cov * grad));
      const double t = studentTQuantile(0.975, dof);
      o.lo = std::exp(xstar - t * se);
      o.hi = std::exp(xstar + t * se);
    }
    out.rungs.push_back(std::move(o));
  }

  for (const auto& [arm, list] : by_arm) {
    ArmTransfer a;
    a.arm = arm;
    a.rungs = static_cast<int>(list.size());
    const DriftFit& d = drift[arm];
    a.slope = d.slope;
    const std::string axis = list.front()->axis;
    if (std::isfinite(d.slope) && std::isfinite(d.slope_se) && d.dof > 0) {
      const double t = studentTQuantile(0.975, d.dof);
      a.slope_lo = d.slope - t * d.slope_se;
      a.slope_hi = d.slope + t * d.slope_se;
      a.per_decade = std::pow(10.0, a.slope);
      a.per_decade_lo = std::pow(10.0, a.slope_lo);
      a.per_decade_hi = std::pow(10.0, a.slope_hi);
      a.determined = true;
      a.drifts = a.slope_lo > 0 || a.slope_hi < 0;
      const std::string figures = "x" + formatted(a.per_decade) + " per decade of N [" +
                                  formatted(a.per_decade_lo) + ", " + formatted(a.per_decade_hi) +
                                  "], " + std::to_string(a.rungs) + " rungs";
      a.diagnostic = {"lr_transfer", arm,
                      a.drifts
                          ? arm + ": the best " + axis + " drifts with size: " + figures
                          : arm + ": the best " + axis + " transfers across sizes: " + figures};
    } else {
      a.diagnostic = {"lr_transfer", arm,
                      arm + ": learning-rate transfer undetermined (" + std::to_string(a.rungs) +
                          " rungs with 3 or more values and a minimum; it takes 2 and spare "
                          "points)"};
    }
    out.arms.push_back(std::move(a));
  }
  return out;
}

std::string lrTransferMarkdown(const LrTransfer& t) {
  if (t.rungs.empty()) return "";
  std::string s =
      "\nLearning-rate transfer (quadratic in ln value per rung; 95% interval):\n\n"
      "| arm | size | N | values | optimum | 95% interval |\n|---|---|---|---|---|---|\n";
  for (const RungOptimum& r : t.rungs) {
    s += "| " + r.arm + " | " + r.size + " | " + formatted(r.params) + " | " +
         std::to_string(r.values) + " | ";
    if (!r.fitted) {
      s += "- | " + r.note + " |\n";
      continue;
    }
    s += r.axis + " " + formatted(r.optimum) + (r.inside ? "" : " (outside the values tried)") +
         " | " +
         (std::isfinite(r.lo) ? "[" + formatted(r.lo) + ", " + formatted(r.hi) + "]"
                              : "no noise estimate") +
         " |\n";
  }
  s += "\n";
  for (const ArmTransfer& a : t.arms) s += a.diagnostic.message + "\n";
  return s;
}

nlohmann::json lrTransferToJson(const LrTransfer& t) {
  nlohmann::json rungs = nlohmann::json::array(), arms = nlohmann::json::array();
  for (const RungOptimum& r : t.rungs)
    rungs.push_back({{"arm", r.arm},
                     {"size", r.size},
                     {"axis", r.axis},
                     {"params", jsonNumber(r.params)},
                     {"values", r.values},
                     {"fitted", r.fitted},
                     {"optimum", jsonNumber(r.optimum)},
                     {"lo", jsonNumber(r.lo)},
                     {"hi", jsonNumber(r.hi)},
                     {"min_loss", jsonNumber(r.min_loss)},
                     {"inside", r.inside},
                     {"note", r.note}});
  for (const ArmTransfer& a : t.arms)
    arms.push_back({{"arm", a.arm},
                    {"rungs", a.rungs},
                    {"slope", jsonNumber(a.slope)},
                    {"slope_lo", jsonNumber(a.slope_lo)},
                    {"slope_hi", jsonNumber(a.slope_hi)},
                    {"per_decade", jsonNumber(a.per_decade)},
                    {"per_decade_lo", jsonNumber(a.per_decade_lo)},
                    {"per_decade_hi", jsonNumber(a.per_decade_hi)},
                    {"drifts", a.drifts},
                    {"determined", a.determined},
                    {"diagnostic", a.diagnostic.message}});
  return {{"rungs", rungs}, {"arms", arms}};
}

}  // namespace deepladder::fitting
