// JSON forms of the fits (see fit_json.h).
#include "fitting/fit_json.h"

#include <cmath>

#include "fitting/fit_diagnostics.h"

namespace deepladder::fitting {
namespace {

nlohmann::json num(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json armJson(const ArmFit& f) {
  return {{"E", num(f.E)},
          {"A", num(f.A)},
          {"gamma", num(f.gamma)},
          {"gamma_se", num(f.gamma_se)},
          {"gamma_ci", {num(f.gamma_ci_lo), num(f.gamma_ci_hi)}},
          {"gamma_t", {num(f.gamma_t_lo), num(f.gamma_t_hi)}},
          {"A_se", num(f.A_se)},
          {"dof", f.dof},
          {"n", f.n_points},
          {"method", f.method},
          {"bootstrap_used", f.bootstrap_used},
          {"no_fit", f.no_fit.empty() ? nlohmann::json() : nlohmann::json(f.no_fit)},
          {"at_bound", f.at_bound}};
}

}  // namespace

nlohmann::json frontierToJson(const FrontierResult& result) {
  nlohmann::json out;
  out["c_ref"] = num(result.c_ref);
  out["baseline"] = result.baseline;
  out["estimator"] = estimatorName(result.estimator);
  out["estimator_description"] = estimatorDescription(result.estimator, result.joint);
  out["ci_level"] = num(result.ci_level);
  out["bootstrap"] = {{"requested", result.bootstrap_requested},
                      {"used", result.bootstrap_used},
                      {"resampled", result.residual_bootstrap ? "residuals" : "runs"}};
  out["arms"] = nlohmann::json::object();
  for (const auto& f : result.arms) out["arms"][f.arm] = armJson(f);
  out["baseline_line"] =
      result.baseline_line.arm.empty() ? nlohmann::json() : armJson(result.baseline_line);
  out["multipliers"] = nlohmann::json::object();
  for (const auto& m : result.multipliers) {
    nlohmann::json measured = nlohmann::json::array();
    for (const auto& p : m.measured)
      measured.push_back({{"compute", num(p.compute)}, {"multiplier", num(p.multiplier)}});
    nlohmann::json projected = nlohmann::json::array();
    for (const auto& p : m.projected)
      projected.push_back({{"compute", num(p.compute)},
                           {"multiplier", num(p.multiplier)},
                           {"ci", {num(p.ci_lo), num(p.ci_hi)}}});
    out["multipliers"][m.arm] = {{"measured", measured},
                                 {"projected", projected},
                                 {"per_decade", num(m.per_decade)},
                                 {"per_decade_ci", {num(m.per_decade_lo), num(m.per_decade_hi)}}};
  }
  out["sweep"] = sweepChoicesJson(result);  // the point each rung used (fit_diagnostics.h)
  out["diagnostics"] = diagnosticsJson(result);
  return out;
}

nlohmann::json chinchillaToJson(const ChinchillaFit& fit) {
  return {{"E", num(fit.E)},         {"A", num(fit.A)},       {"B", num(fit.B)},
          {"alpha", num(fit.alpha)}, {"beta", num(fit.beta)}, {"objective", num(fit.objective)},
          {"a", num(fit.a)},         {"b", num(fit.b)}};
}

}  // namespace deepladder::fitting
