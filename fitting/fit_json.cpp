// JSON forms of the fits (see fit_json.h).
#include "fitting/fit_json.h"

#include <cmath>

#include "fitting/fit_diagnostics.h"
#include "fitting/fit_forms.h"
#include "fitting/json_number.h"

namespace deepladder::fitting {
namespace {

nlohmann::json armJson(const ArmFit& f) {
  return {{"E", jsonNumber(f.E)},
          {"A", jsonNumber(f.A)},
          {"gamma", jsonNumber(f.gamma)},
          {"gamma_se", jsonNumber(f.gamma_se)},
          {"gamma_ci", {jsonNumber(f.gamma_ci_lo), jsonNumber(f.gamma_ci_hi)}},
          {"gamma_t", {jsonNumber(f.gamma_t_lo), jsonNumber(f.gamma_t_hi)}},
          {"A_se", jsonNumber(f.A_se)},
          {"dof", f.dof},
          {"n", f.n_points},
          {"method", f.method},
          {"bootstrap_used", f.bootstrap_used},
          {"no_fit", f.no_fit.empty() ? nlohmann::json() : nlohmann::json(f.no_fit)},
          {"at_bound", f.at_bound}};
}

}  // namespace

nlohmann::json misfitJson(const MisfitModel& m) {
  if (!std::isfinite(m.per_decade)) return nlohmann::json();
  return {{"base", jsonNumber(m.base)},
          {"per_decade", jsonNumber(m.per_decade)},
          {"quantile", jsonNumber(m.quantile)},
          {"points", m.points},
          {"refits", m.refits},
          {"prior_weight", jsonNumber(m.prior_weight)},
          {"difference_per_decade", m.difference_per_decade},
          {"source", m.source}};
}

nlohmann::json lossPredictionJson(const LossPrediction& p) {
  return {
      {"compute", jsonNumber(p.compute)},
      {"loss", jsonNumber(p.loss)},
      {"decades", jsonNumber(p.decades)},
      {"lo", jsonNumber(p.lo)},
      {"hi", jsonNumber(p.hi)},
      {"fit_lo", jsonNumber(p.fit_lo)},
      {"fit_hi", jsonNumber(p.fit_hi)},
      {"no_interval", p.no_interval.empty() ? nlohmann::json() : nlohmann::json(p.no_interval)}};
}

nlohmann::json frontierToJson(const FrontierResult& result) {
  nlohmann::json out;
  out["form"] = result.form;
  out["formula"] = formulaOf(result);
  out["form_description"] = formDescriptionOf(result);
  out["form_choice"] =
      result.form_choice.empty() ? nlohmann::json() : nlohmann::json(result.form_choice);
  out["pinned_E"] = jsonNumber(result.pinned_E);
  out["pinned_E_source"] =
      result.pinned_E_source.empty() ? nlohmann::json() : nlohmann::json(result.pinned_E_source);
  out["c_ref"] = jsonNumber(result.c_ref);
  out["baseline"] = result.baseline;
  out["estimator"] = estimatorName(result.estimator);
  out["estimator_description"] = estimatorDescription(result.estimator, result.joint);
  out["ci_level"] = jsonNumber(result.ci_level);
  out["bootstrap"] = {{"requested", result.bootstrap_requested},
                      {"used", result.bootstrap_used},
                      {"resampled", result.residual_bootstrap ? "residuals" : "runs"}};
  out["arms"] = nlohmann::json::object();
  const std::vector<std::string> extra = formOf(result).extraParameters();
  for (const auto& f : result.arms) {
    nlohmann::json arm = armJson(f);
    for (size_t i = 0; i < extra.size(); ++i) {
      arm[extra[i]] = jsonNumber(i < f.extra.size() ? f.extra[i] : kNaN);
      arm[extra[i] + "_se"] = jsonNumber(i < f.extra_se.size() ? f.extra_se[i] : kNaN);
    }
    out["arms"][f.arm] = arm;
  }
  out["baseline_line"] =
      result.baseline_line.arm.empty() ? nlohmann::json() : armJson(result.baseline_line);
  out["multipliers"] = nlohmann::json::object();
  for (const auto& m : result.multipliers) {
    nlohmann::json measured = nlohmann::json::array();
    for (const auto& p : m.measured)
      measured.push_back(
          {{"compute", jsonNumber(p.compute)}, {"multiplier", jsonNumber(p.multiplier)}});
    nlohmann::json projected = nlohmann::json::array();
    for (const auto& p : m.projected)
      projected.push_back({{"compute", jsonNumber(p.compute)},
                           {"multiplier", jsonNumber(p.multiplier)},
                           {"lo", jsonNumber(p.ci_lo)},
                           {"hi", jsonNumber(p.ci_hi)},
                           {"fit_lo", jsonNumber(p.fit_lo)},
                           {"fit_hi", jsonNumber(p.fit_hi)},
                           {"ci", {jsonNumber(p.ci_lo), jsonNumber(p.ci_hi)}}});
    out["multipliers"][m.arm] = {
        {"measured", measured},
        {"projected", projected},
        {"per_decade", jsonNumber(m.per_decade)},
        {"per_decade_ci", {jsonNumber(m.per_decade_lo), jsonNumber(m.per_decade_hi)}}};
  }
  out["interval"] =
      "lo/hi: prediction interval (the fit interval widened by the law's misfit, estimated from "
      "the ladder's own nested backtest); fit_lo/fit_hi: fit interval (bootstrap, parameter "
      "uncertainty only)";
  out["misfit"] = misfitJson(result.misfit);
  out["projections"] = nlohmann::json::object();
  for (const auto& arm : result.loss_projections) {
    nlohmann::json at = nlohmann::json::array();
    for (const LossPrediction& p : arm.at) at.push_back(lossPredictionJson(p));
    out["projections"][arm.arm] = at;
  }
  out["sweep"] = sweepChoicesJson(result);  // the point each rung used (fit_diagnostics.h)
  out["diagnostics"] = diagnosticsJson(result);
  return out;
}

nlohmann::json chinchillaToJson(const ChinchillaFit& fit) {
  return {{"E", jsonNumber(fit.E)},       {"A", jsonNumber(fit.A)},
          {"B", jsonNumber(fit.B)},       {"alpha", jsonNumber(fit.alpha)},
          {"beta", jsonNumber(fit.beta)}, {"objective", jsonNumber(fit.objective)},
          {"a", jsonNumber(fit.a)},       {"b", jsonNumber(fit.b)}};
}

}  // namespace deepladder::fitting
