// Laws over a scatter of runs (see scatter_law.h).
#include "fitting/scatter_law.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/errors.h"
#include "core/results_table.h"
#include "fitting/frontier_estimator.h"
#include "fitting/frontier_fit.h"
#include "fitting/log_excess_line.h"

namespace deepladder::fitting {
namespace {

std::string significant(double v, int digits = 3) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", digits, v);
  return text;
}

ScatterLaw powerLaw(const std::string& group, const std::vector<ScatterPoint>& points) {
  ScatterLaw law;
  law.group = group;
  std::vector<double> x, y;
  for (const auto& p : points)
    if (p.group == group) {
      x.push_back(p.x);
      y.push_back(p.y);
    }
  law.n_points = static_cast<int>(x.size());
  if (std::any_of(x.begin(), x.end(), [](double v) { return !(v > 0); }) ||
      std::any_of(y.begin(), y.end(), [](double v) { return !(v > 0); })) {
    law.no_fit = "a power law needs positive x and y";
    return law;
  }
  const auto line = fitLogExcessLine(x, y, /*E=*/0.0, /*c_ref=*/1.0);
  if (!line) {
    law.no_fit = x.size() < 2 ? "fewer than 2 points" : "every point has the same x";
    return law;
  }
  law.a = line->A;
  law.b = line->slope;
  return law;
}

}  // namespace

double ScatterLaw::predict(double x) const {
  if (!fitted()) return kNaN;
  if (form == ScatterLawForm::kPowerLaw) return a * std::pow(x, b);
  return E + A * std::pow(x / c_ref, -gamma);
}

std::string ScatterLaw::formula() const {
  if (!fitted()) return "no fit: " + no_fit;
  if (form == ScatterLawForm::kPowerLaw) return "y = " + significant(a) + " x^" + significant(b);
  return "L = " + significant(E) + " + " + significant(A) + " (C/" + significant(c_ref, 2) + ")^-" +
         significant(gamma);
}

bool frontierLawApplies(const ScatterSpec& spec) {
  return spec.x == "flops" && spec.stat == SummaryStat::kFinal &&
         spec.metric.find("loss") != std::string::npos;
}

ScatterFit fitScatterLaws(const std::vector<ScatterPoint>& points,
                          const std::vector<std::string>& groups, const ScatterSpec& spec,
                          FrontierOptions options) {
  ScatterFit out;
  if (frontierLawApplies(spec) && !groups.empty()) {
    ResultsTable table;
    table.source = "the scatter's points";
    for (const auto& p : points) {
      RunPoint r;
      r.arm = p.group;
      r.compute_flops = p.x;
      r.val_loss = p.y;
      r.run_id = p.run_id;
      table.points.push_back(r);
    }
    if (std::find(groups.begin(), groups.end(), options.baseline) == groups.end())
      options.baseline = groups.front();
    options.bootstrap = 0;
    try {
      const FrontierResult result = fitFrontier(table, options);
      for (const auto& group : groups) {
        ScatterLaw law;
        law.group = group;
        law.form = ScatterLawForm::kFrontier;
        law.c_ref = result.c_ref;
        const auto arm = std::find_if(result.arms.begin(), result.arms.end(),
                                      [&](const ArmFit& a) { return a.arm == group; });
        if (arm == result.arms.end()) {
          law.no_fit = "not fitted";
        } else {
          law.E = arm->E;
          law.A = arm->A;
          law.gamma = arm->gamma;
          law.n_points = arm->n_points;
          if (!arm->no_fit.empty())
            law.no_fit = arm->no_fit;
          else if (!std::isfinite(arm->A) || !std::isfinite(arm->gamma))
            law.no_fit = "the fit did not converge";
        }
        out.laws.push_back(std::move(law));
      }
      out.note = "L(C) = E + A (C/C0)^-gamma, E shared with " + result.baseline + " (" +
                 estimatorName(result.estimator) + " estimator, as `deepladder fit`)";
      return out;
    } catch (const UserError& e) {
      out.note = std::string("frontier fit failed (") + e.what() + "); power laws drawn instead";
    }
  }
  for (const auto& group : groups) out.laws.push_back(powerLaw(group, points));
  if (out.note.empty()) out.note = "y = a x^b, least squares on ln y vs ln x";
  return out;
}

}  // namespace deepladder::fitting
