// Lossless JSON of a frontier fit (see frontier_result_json.h).
#include "fitting/frontier_result_json.h"

#include <cmath>
#include <stdexcept>

#include "fitting/json_number.h"

namespace deepladder::fitting {
namespace {

using nlohmann::json;

json numbers(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(jsonNumber(x));
  return out;
}

json armToJson(const ArmFit& f) {
  return {{"arm", f.arm},
          {"E_free", f.E_free},
          {"v",
           {jsonNumber(f.E), jsonNumber(f.A), jsonNumber(f.gamma), jsonNumber(f.E_se),
            jsonNumber(f.A_se), jsonNumber(f.gamma_se), jsonNumber(f.E_ci_lo),
            jsonNumber(f.E_ci_hi), jsonNumber(f.A_ci_lo), jsonNumber(f.A_ci_hi),
            jsonNumber(f.gamma_ci_lo), jsonNumber(f.gamma_ci_hi), jsonNumber(f.rss),
            jsonNumber(f.rms), jsonNumber(f.huber_delta)}},
          {"n_points", f.n_points},
          {"dof", f.dof},
          {"t", {jsonNumber(f.gamma_t_lo), jsonNumber(f.gamma_t_hi)}},
          {"bootstrap_used", f.bootstrap_used},
          {"method", f.method},
          {"no_fit", f.no_fit},
          {"at_bound", f.at_bound},
          {"extra", numbers(f.extra)},
          {"extra_se", numbers(f.extra_se)}};
}

ArmFit armFromJson(const json& j) {
  ArmFit f;
  f.arm = j.at("arm").get<std::string>();
  f.E_free = j.at("E_free").get<bool>();
  const json& v = j.at("v");
  if (!v.is_array() || v.size() != 15) throw std::runtime_error("arm fit: 15 values expected");
  double* fields[] = {&f.E,           &f.A,           &f.gamma,   &f.E_se,    &f.A_se,
                      &f.gamma_se,    &f.E_ci_lo,     &f.E_ci_hi, &f.A_ci_lo, &f.A_ci_hi,
                      &f.gamma_ci_lo, &f.gamma_ci_hi, &f.rss,     &f.rms,     &f.huber_delta};
  for (size_t i = 0; i < 15; ++i) *fields[i] = jsonNumber(v[i]);
  f.n_points = j.at("n_points").get<int>();
  f.dof = j.at("dof").get<int>();
  f.gamma_t_lo = jsonNumber(j.at("t").at(0));
  f.gamma_t_hi = jsonNumber(j.at("t").at(1));
  f.bootstrap_used = j.at("bootstrap_used").get<int>();
  f.method = j.at("method").get<std::string>();
  f.no_fit = j.at("no_fit").get<std::string>();
  f.at_bound = j.at("at_bound").get<std::vector<std::string>>();
  if (j.contains("extra"))
    for (const json& v : j.at("extra")) f.extra.push_back(jsonNumber(v));
  if (j.contains("extra_se"))
    for (const json& v : j.at("extra_se")) f.extra_se.push_back(jsonNumber(v));
  return f;
}

json multipliersToJson(const ArmMultipliers& m) {
  json measured = json::array(), projected = json::array();
  for (const auto& x : m.measured)
    measured.push_back({jsonNumber(x.compute), jsonNumber(x.multiplier)});
  for (const auto& x : m.projected)
    projected.push_back({jsonNumber(x.compute), jsonNumber(x.multiplier), jsonNumber(x.ci_lo),
                         jsonNumber(x.ci_hi)});
  return {{"arm", m.arm},
          {"measured", measured},
          {"projected", projected},
          {"per_decade",
           {jsonNumber(m.per_decade), jsonNumber(m.per_decade_lo), jsonNumber(m.per_decade_hi)}}};
}

ArmMultipliers multipliersFromJson(const json& j) {
  ArmMultipliers m;
  m.arm = j.at("arm").get<std::string>();
  for (const auto& x : j.at("measured"))
    m.measured.push_back({jsonNumber(x.at(0)), jsonNumber(x.at(1))});
  for (const auto& x : j.at("projected"))
    m.projected.push_back(
        {jsonNumber(x.at(0)), jsonNumber(x.at(1)), jsonNumber(x.at(2)), jsonNumber(x.at(3))});
  const json& pd = j.at("per_decade");
  m.per_decade = jsonNumber(pd.at(0));
  m.per_decade_lo = jsonNumber(pd.at(1));
  m.per_decade_hi = jsonNumber(pd.at(2));
  return m;
}

}  // namespace

nlohmann::json frontierResultToJson(const FrontierResult& r) {
  json arms = json::array(), multipliers = json::array(), draws = json::array();
  for (const auto& a : r.arms) arms.push_back(armToJson(a));
  for (const auto& m : r.multipliers) multipliers.push_back(multipliersToJson(m));
  for (const auto& replicate : r.bootstrap_draws) {
    json row = json::array();
    for (const auto& d : replicate) {
      json draw = {jsonNumber(d.E), jsonNumber(d.A), jsonNumber(d.gamma)};
      for (double x : d.extra) draw.push_back(jsonNumber(x));
      row.push_back(std::move(draw));
    }
    draws.push_back(std::move(row));
  }
  return {{"form", r.form},
          {"pinned_E", jsonNumber(r.pinned_E)},
          {"pinned_E_source", r.pinned_E_source},
          {"c_ref", r.c_ref},
          {"baseline", r.baseline},
          {"joint", r.joint},
          {"bootstrap_requested", r.bootstrap_requested},
          {"bootstrap_used", r.bootstrap_used},
          {"residual_bootstrap", r.residual_bootstrap},
          {"ci_level", r.ci_level},
          {"arms", arms},
          {"multipliers", multipliers},
          {"draws", draws},
          {"estimator", estimatorName(r.estimator)},
          {"baseline_line", armToJson(r.baseline_line)}};
}

FrontierResult frontierResultFromJson(const nlohmann::json& j) {
  try {
    FrontierResult r;
    r.form = j.value("form", std::string("frontier"));  // absent before forms were stored
    if (j.contains("pinned_E")) r.pinned_E = jsonNumber(j.at("pinned_E"));
    r.pinned_E_source = j.value("pinned_E_source", std::string());
    r.c_ref = j.at("c_ref").get<double>();
    r.baseline = j.at("baseline").get<std::string>();
    r.joint = j.at("joint").get<bool>();
    r.bootstrap_requested = j.at("bootstrap_requested").get<int>();
    r.bootstrap_used = j.at("bootstrap_used").get<int>();
    r.residual_bootstrap = j.value("residual_bootstrap", false);  // absent before it was stored
    r.ci_level = j.at("ci_level").get<double>();
    for (const auto& a : j.at("arms")) r.arms.push_back(armFromJson(a));
    for (const auto& m : j.at("multipliers")) r.multipliers.push_back(multipliersFromJson(m));
    r.estimator = parseEstimator(j.at("estimator").get<std::string>());
    r.baseline_line = armFromJson(j.at("baseline_line"));
    for (const auto& row : j.at("draws")) {
      std::vector<FrontierDraw> replicate;
      for (const auto& d : row) {
        FrontierDraw draw{jsonNumber(d.at(0)), jsonNumber(d.at(1)), jsonNumber(d.at(2)), {}};
        for (size_t i = 3; i < d.size(); ++i) draw.extra.push_back(jsonNumber(d.at(i)));
        replicate.push_back(std::move(draw));
      }
      r.bootstrap_draws.push_back(std::move(replicate));
    }
    return r;
  } catch (const std::exception& e) {  // json errors, an unknown estimator name
    throw std::runtime_error(std::string("not a cached frontier fit: ") + e.what());
  }
}

}  // namespace deepladder::fitting
