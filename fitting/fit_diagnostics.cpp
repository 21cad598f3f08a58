// Diagnostics of a frontier fit (see fit_diagnostics.h).
#include "fitting/fit_diagnostics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "fitting/json_number.h"
#include "fitting/misfit.h"
#include "fitting/shared_e_check.h"
#include "fitting/sweep_envelope.h"
#include "fitting/table_format.h"

namespace deepladder::fitting {
namespace {

std::string twoDigits(double v) {
  return formatNumber(v, 2, nullptr);
}

std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// Mean loss at each distinct compute of one arm, by compute.
std::map<double, double> rungMeans(const ResultsTable& table, const std::string& arm) {
  std::map<double, std::pair<double, int>> sums;
  for (const RunPoint& p : table.points)
    if (p.arm == arm) {
      auto& s = sums[p.compute_flops];
      s.first += p.val_loss;
      s.second += 1;
    }
  std::map<double, double> out;
  for (const auto& [c, s] : sums) out[c] = s.first / s.second;
  return out;
}

// Least squares y = b0 + b1 u + b2 u^2 (u = x - mean x): slope change across [x_min, x_max] and
// its standard error; NaN when n < 4 or the design is singular.
std::pair<double, double> slopeChange(const std::vector<double>& x, const std::vector<double>& y,
                                      double* slope) {
  const size_t n = x.size();
  if (n < 4) return {kNaN, kNaN};
  double mean = 0;
  for (double v : x) mean += v;
  mean /= double(n);
  double m[3][3] = {}, r[3] = {};
  for (size_t i = 0; i < n; ++i) {
    const double u = x[i] - mean, f[3] = {1, u, u * u};
    for (int a = 0; a < 3; ++a) {
      r[a] += f[a] * y[i];
      for (int b = 0; b < 3; ++b) m[a][b] += f[a] * f[b];
    }
  }
  // Inverse of the symmetric 3x3 normal matrix by cofactors.
  const double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
  const double c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2];
  const double c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
  const double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
  if (!(std::abs(det) > 1e-300)) return {kNaN, kNaN};
  double inv[3][3];
  inv[0][0] = c00 / det;
  inv[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det;
  inv[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det;
  inv[1][0] = c01 / det;
  inv[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det;
  inv[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det;
  inv[2][0] = c02 / det;
  inv[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det;
  inv[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det;
  double b[3] = {};
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) b[a] += inv[a][c] * r[c];
  double rss = 0;
  for (size_t i = 0; i < n; ++i) {
    const double u = x[i] - mean;
    const double e = y[i] - (b[0] + b[1] * u + b[2] * u * u);
    rss += e * e;
  }
  const double s2 = rss / double(n - 3);
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  const double span = *hi - *lo;
  *slope = b[1];
  return {2 * b[2] * span, 2 * std::sqrt(s2 * inv[2][2]) * span};
}

}  // namespace

std::string extrapolationRegime(double c, double min_fitted, double max_fitted) {
  if (c >= min_fitted && c <= max_fitted) return "interpolation";
  if (c > max_fitted && std::log10(c / max_fitted) > kProjectionDecades) return "projection";
  return "extrapolation";
}

FitDiagnostics diagnoseFrontierFit(const FrontierResult& fit, const ResultsTable& fitted,
                                   const FrontierOptions& options) {
  FitDiagnostics d;
  for (const RunPoint& p : fitted.points) {
    if (!(p.compute_flops > 0) || !std::isfinite(p.compute_flops)) continue;
    if (!(d.min_fitted_compute <= p.compute_flops)) d.min_fitted_compute = p.compute_flops;
    if (!(d.max_fitted_compute >= p.compute_flops)) d.max_fitted_compute = p.compute_flops;
  }

  // The baseline's E at a bound: every arm's projection rests on it.
  if (!fit.arms.empty()) {
    const ArmFit& base = fit.arms.front();
    for (const std::string& bound : base.at_bound)
      if (bound.rfind("E=", 0) == 0)
        d.warnings.push_back(
            {"e_at_bound", base.arm,
             base.arm + ": E at its bound (" + bound +
                 "): the rungs do not determine the irreducible loss, and every arm's "
                 "multiplier rests on it"});
  }

  bool e_at_bound = false;
  for (const FitDiagnostic& w : d.warnings) e_at_bound = e_at_bound || w.kind == "e_at_bound";

  // Per arm: rungs, then whether an arm that shares E accepts it.
  for (const ArmFit& arm : fit.arms) {
    const std::map<double, double> means = rungMeans(fitted, arm.arm);
    if (int(means.size()) < kTrustedRungs)
      d.warnings.push_back({"few_rungs", arm.arm,
                            arm.arm + ": " + std::to_string(means.size()) +
                                " rung(s), fewer than " + std::to_string(kTrustedRungs) +
                                ": a bend or a bad rung cannot be seen"});
    if (!std::isfinite(arm.E)) continue;
    std::vector<double> x, y;
    bool all_above = true;
    for (const auto& [c, loss] : means) {
      if (!(loss > arm.E)) all_above = false;
      x.push_back(std::log(c / fit.c_ref));
      y.push_back(std::log(loss - arm.E));
    }
    if (!all_above || x.size() < size_t(kTrustedRungs)) continue;
    double slope = kNaN;
    const auto [change, se] = slopeChange(x, y, &slope);
    d.curvature_arms.push_back(arm.arm);
    d.slope_change.push_back(change);
    d.slope_change_se.push_back(se);
    // An arm that shares the baseline's E: does it accept it? (Nothing is said while that E sits
    // on a bound: the e_at_bound warning is the cause then.)
    if (!arm.E_free && !e_at_bound) {
      std::vector<double> compute, loss;
      for (const auto& [c, l] : means) compute.push_back(c), loss.push_back(l);
      const SharedECheck check = checkSharedE(compute, loss, arm.E, fit.c_ref);
      if (check.p_value < kFlagPValue)
        d.warnings.push_back(
            {"shared_e", arm.arm,
             arm.arm + ": its rungs reject the shared E = " + fixed(check.shared_E, 4) +
                 " (its own best E is " + fixed(check.own_E, 4) +
                 ", F test p = " + twoDigits(check.p_value) +
                 "): with the baseline's E this arm's law is the wrong shape, so its "
                 "multiplier is suspect; try --joint or --estimator robust"});
    }
  }

  // The ladder's own predictions: held-out rungs outside the prediction interval their refit
  // would have printed, far more often than the interval's level allows.
  for (const ArmBacktestCheck& c : fit.misfit.checks)
    if (c.p_value < kFlagPValue)
      d.warnings.push_back(
          {"backtest_failed", c.arm,
           c.arm + ": its own nested backtest missed " + std::to_string(c.misses) + " of " +
               std::to_string(c.points) +
               " held-out rungs outside the interval its refit "
               "printed (" +
               std::to_string(c.over) + " over-predicted; about " +
               fixed(100 * (1 - fit.ci_level), 0) + "% expected, p = " + twoDigits(c.p_value) +
               "): the law's shape did not hold on this ladder, and its projections may miss "
               "by more than their intervals say"});

  // How far each --at lies from the data.
  double farthest = kNaN;
  for (double c : options.at) {
    ExtrapolationDistance e;
    e.compute = c;
    if (std::isfinite(d.max_fitted_compute)) {
      e.decades = std::log10(c / d.max_fitted_compute);
      e.regime = extrapolationRegime(c, d.min_fitted_compute, d.max_fitted_compute);
      e.expected_error = fit.misfit.quantile * misfitSigma(fit.misfit, e.decades);
      if (e.regime == "projection" && !(farthest >= c)) farthest = c;
    }
    d.extrapolation.push_back(e);
  }
  if (std::isfinite(farthest))
    d.warnings.push_back(
        {"projection", "",
         twoDigits(farthest) + " FLOPs is " +
             fixed(std::log10(farthest / d.max_fitted_compute), 1) +
             " decades beyond the largest fitted compute (" + twoDigits(d.max_fitted_compute) +
             "): past " + fixed(kProjectionDecades, 0) +
             " decades a multiplier is a projection of the law, not a measurement"});

  for (FitDiagnostic& w : sweepEdgeDiagnostics(fit.sweep)) d.warnings.push_back(std::move(w));
  return d;
}

std::string diagnosticsMarkdown(const FrontierResult& fit) {
  std::string out;
  if (!fit.sweep.empty()) {
    out += "\nSweep: the point each rung used (lowest mean final validation loss over seeds)\n\n";
    out += "| arm | size | point used | mean loss | points (mean loss) |\n|---|---|---|---|---|\n";
    for (const SweepRungChoice& r : fit.sweep) {
      std::string tried;
      for (const SweepPointLoss& p : r.points)
        tried += (tried.empty() ? "" : ", ") + p.label + " " + fixed(p.mean_loss, 4) +
                 (p.seeds > 1 ? " (" + std::to_string(p.seeds) + " seeds)" : "");
      out += "| " + r.arm + " | " + r.size + " | " + r.chosen + (r.at_edge ? " (edge)" : "") +
             " | " + fixed(r.mean_loss, 4) + " | " + tried + " |\n";
    }
  }
  const FitDiagnostics& d = fit.diagnostics;
  if (!d.extrapolation.empty() && std::isfinite(d.max_fitted_compute)) {
    out += "\nDistance from the data (fitted " + twoDigits(d.min_fitted_compute) + " to " +
           twoDigits(d.max_fitted_compute) + " FLOPs):";
    for (const ExtrapolationDistance& e : d.extrapolation)
      out += " " + twoDigits(e.compute) + " " + e.regime + " (" + (e.decades > 0 ? "+" : "") +
             fixed(e.decades, 1) + " decades);";
    out.back() = '\n';
    if (std::isfinite(fit.misfit.per_decade)) {
      out += "Expected error of a projected loss (the law's misfit, " +
             fixed(100 * fit.ci_level, 0) + "%):";
      for (const ExtrapolationDistance& e : d.extrapolation)
        out += " at " + twoDigits(e.compute) + " +-" + fixed(100 * e.expected_error, 1) + "%;";
      out.back() = ' ';
      out += fit.misfit.points > 0
                 ? "from " + std::to_string(fit.misfit.points) +
                       " held-out rungs of this ladder's nested backtest and the prior\n"
                 : "from the prior alone (too few rungs to hold any out)\n";
    }
  }
  if (d.warnings.empty()) {
    out += "diagnostics: none\n";
  } else {
    out += "diagnostics:\n";
    for (const FitDiagnostic& w : d.warnings) out += "- " + w.kind + ": " + w.message + "\n";
  }
  return out;
}

TableGrid diagnosticsGrid(const FrontierResult& fit) {
  TableGrid grid;
  grid.header = {"kind", "arm", "what the fit says"};
  const FitDiagnostics& d = fit.diagnostics;
  for (const FitDiagnostic& w : d.warnings) grid.rows.push_back({{w.kind}, {w.arm}, {w.message}});
  for (const ExtrapolationDistance& e : d.extrapolation) {
    std::string text = twoDigits(e.compute) + ": " + e.regime + " (" + (e.decades > 0 ? "+" : "") +
                       fixed(e.decades, 1) + " decades from the largest fitted compute, " +
                       twoDigits(d.max_fitted_compute) + ")";
    if (std::isfinite(e.expected_error))
      text += "; expected error of a projected loss +-" + fixed(100 * e.expected_error, 1) + "%";
    grid.rows.push_back({{"distance"}, {""}, {text, e.decades, ""}});
  }
  for (const SweepRungChoice& r : fit.sweep) {
    std::string tried;
    for (const SweepPointLoss& p : r.points)
      tried += (tried.empty() ? "" : ", ") + p.label + " " + fixed(p.mean_loss, 4);
    grid.rows.push_back({{"sweep"},
                         {r.arm},
                         {r.size + ": " + r.chosen + (r.at_edge ? " (edge: " + r.edge + ")" : "") +
                          " of " + tried}});
  }
  if (grid.rows.empty()) grid.rows.push_back({{"none"}, {""}, {"diagnostics: none"}});
  return grid;
}

nlohmann::json sweepChoicesJson(const FrontierResult& fit) {
  nlohmann::json out = nlohmann::json::array();
  for (const SweepRungChoice& r : fit.sweep) {
    nlohmann::json points = nlohmann::json::array();
    for (const SweepPointLoss& p : r.points)
      points.push_back(
          {{"label", p.label}, {"mean_loss", jsonNumber(p.mean_loss)}, {"seeds", p.seeds}});
    out.push_back({{"arm", r.arm},
                   {"size", r.size},
                   {"compute", jsonNumber(r.compute)},
                   {"chosen", r.chosen},
                   {"mean_loss", jsonNumber(r.mean_loss)},
                   {"at_edge", r.at_edge},
                   {"edge", r.edge},
                   {"points", points}});
  }
  return out;
}

nlohmann::json diagnosticsJson(const FrontierResult& fit) {
  const FitDiagnostics& d = fit.diagnostics;
  nlohmann::json extrapolation = nlohmann::json::array(), warnings = nlohmann::json::array(),
                 curvature = nlohmann::json::array();
  for (const ExtrapolationDistance& e : d.extrapolation)
    extrapolation.push_back({{"compute", jsonNumber(e.compute)},
                             {"decades", jsonNumber(e.decades)},
                             {"regime", e.regime},
                             {"expected_error", jsonNumber(e.expected_error)}});
  for (const FitDiagnostic& w : d.warnings)
    warnings.push_back({{"kind", w.kind}, {"arm", w.arm}, {"message", w.message}});
  for (size_t i = 0; i < d.curvature_arms.size(); ++i)
    curvature.push_back({{"arm", d.curvature_arms[i]},
                         {"slope_change", jsonNumber(d.slope_change[i])},
                         {"se", jsonNumber(d.slope_change_se[i])}});
  return {{"min_fitted_compute", jsonNumber(d.min_fitted_compute)},
          {"max_fitted_compute", jsonNumber(d.max_fitted_compute)},
          {"extrapolation", extrapolation},
          {"warnings", warnings},
          {"curvature", curvature},
          {"trust", trustSentence(fit)}};
}

std::string trustSentence(const FrontierResult& fit) {
  const FitDiagnostics& d = fit.diagnostics;
  if (!std::isfinite(d.max_fitted_compute)) return "No fitted compute: nothing to trust yet.";
  std::vector<std::string> reasons;
  bool e_bound = false, bends = false, shared = false, few = false, edge = false;
  for (const FitDiagnostic& w : d.warnings) {
    e_bound = e_bound || w.kind == "e_at_bound";
    bends = bends || w.kind == "backtest_failed";
    shared = shared || w.kind == "shared_e";
    few = few || w.kind == "few_rungs";
    edge = edge || w.kind == "sweep_edge";
  }
  if (e_bound) reasons.push_back("the baseline's E sits on a bound");
  if (bends) reasons.push_back("the ladder's own held-out rungs missed their intervals");
  if (shared) reasons.push_back("an arm rejects the shared E");
  if (few) reasons.push_back("an arm has fewer than 4 rungs");
  if (edge) reasons.push_back("a best sweep point is at the edge of its sweep");
  const double horizon = d.max_fitted_compute * std::pow(10.0, kProjectionDecades);
  std::string sentence;
  if (reasons.empty()) {
    sentence = "Trust the fit between " + twoDigits(d.min_fitted_compute) + " and " +
               twoDigits(d.max_fitted_compute) + " FLOPs and as a projection up to about " +
               twoDigits(horizon) +
               " (3 decades past the largest rung); nothing in the diagnostics "
               "argues against it";
  } else {
    std::string why;
    for (size_t i = 0; i < reasons.size(); ++i)
      why += (i == 0 ? "" : i + 1 == reasons.size() ? " and " : ", ") + reasons[i];
    sentence = "Trust only the measured multipliers (" + twoDigits(d.min_fitted_compute) + " to " +
               twoDigits(d.max_fitted_compute) + " FLOPs), not the projection, because " + why;
  }
  double beyond = kNaN;
  for (const ExtrapolationDistance& e : d.extrapolation)
    if (e.regime == "projection" && !(beyond >= e.decades)) beyond = e.decades;
  if (std::isfinite(beyond))
    sentence += "; the farthest --at lies " + fixed(beyond, 1) + " decades beyond the data";
  return sentence + ".";
}

}  // namespace deepladder::fitting
