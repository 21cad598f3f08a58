// Live projection of a running ladder (see live_projection.h).
#include "fitting/live_projection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/errors.h"

namespace deepladder::fitting {

FrontierOptions projectionOptions(FrontierOptions options, double target) {
  if (std::find(options.at.begin(), options.at.end(), target) == options.at.end())
    options.at.push_back(target);
  options.residual_bootstrap = true;
  return options;
}

LiveProjection::LiveProjection(FitCacheStore* cache, std::string source, FrontierOptions options,
                               double target)
    : fitter_(cache, std::move(source)),
      options_(projectionOptions(std::move(options), target)),
      target_(target) {}

ProjectionSnapshot snapshotOf(const FrontierResult& fit, const ResultsTable& table, double target) {
  ProjectionSnapshot s;
  s.target = target;
  s.baseline = fit.baseline;
  std::map<std::string, int> points;
  for (const auto& p : table.points) {
    ++s.runs;
    s.compute_spent += p.compute_flops;
    ++points[p.arm];
  }
  for (const auto& m : fit.multipliers) {
    ArmProjection a;
    a.arm = m.arm;
    a.points = points[m.arm];
    for (const auto& p : m.projected)
      if (p.compute == target) {
        a.multiplier = p.multiplier, a.lo = p.ci_lo, a.hi = p.ci_hi;
        // A fit made without prediction intervals carries its bootstrap's interval in ci.
        a.fit_lo = std::isfinite(p.fit_lo) ? p.fit_lo : p.ci_lo;
        a.fit_hi = std::isfinite(p.fit_hi) ? p.fit_hi : p.ci_hi;
      }
    for (const auto& f : fit.arms)
      if (f.arm == m.arm && !f.no_fit.empty()) a.note = f.no_fit;  // e.g. a loss below E
    s.arms.push_back(a);
  }
  return s;
}

ProjectionSnapshot LiveProjection::refresh(const ResultsTable& table) {
  ProjectionSnapshot s;
  try {
    fit_ = fitter_.fit(table, options_, /*lenient=*/true);
    s = snapshotOf(fit_, table, target_);
  } catch (const UserError& e) {
    fit_ = FrontierResult{};
    s = snapshotOf(fit_, table, target_);
    s.baseline_note = e.what();
  }
  s.refitted = fitter_.refitted();
  std::map<std::string, int> points;
  for (const auto& p : table.points) ++points[p.arm];
  for (const auto& skipped : fitter_.skipped()) {
    if (skipped.arm == options_.baseline) continue;  // its reason is baseline_note
    ArmProjection a;
    a.arm = skipped.arm;
    a.points = points[skipped.arm];
    a.note = skipped.reason;
    s.arms.push_back(a);
  }
  if (s.baseline.empty() && fit_.arms.empty()) s.baseline = options_.baseline;
  for (const auto& [arm, n] : points) {
    if (arm == options_.baseline) continue;
    const bool listed = std::any_of(s.arms.begin(), s.arms.end(),
                                    [&](const ArmProjection& a) { return a.arm == arm; });
    if (!listed) s.arms.push_back({arm, kNaN, kNaN, kNaN, n, "the baseline cannot be fitted yet"});
  }
  std::sort(s.arms.begin(), s.arms.end(),
            [](const ArmProjection& a, const ArmProjection& b) { return a.arm < b.arm; });
  return s;
}

std::string projectionLine(const ProjectionSnapshot& s) {
  char head[96];
  std::snprintf(head, sizeof head, "%d run%s, %.3g FLOPs:", s.runs, s.runs == 1 ? "" : "s",
                s.compute_spent);
  std::string line = head;
  if (s.arms.empty()) {
    line += s.baseline_note.empty() ? " no arm to compare with the baseline yet"
                                    : " waiting (" + s.baseline_note + ")";
    return line;
  }
  bool first = true;
  for (const auto& a : s.arms) {
    char buf[160];
    if (std::isfinite(a.multiplier) && a.hi > a.lo)
      std::snprintf(buf, sizeof buf, "%s %s %.3gx [%.3g, %.3g]", first ? "" : ";", a.arm.c_str(),
                    a.multiplier, a.lo, a.hi);
    else if (std::isfinite(a.multiplier))  // every fit passes through its runs: no scatter yet
      std::snprintf(buf, sizeof buf, "%s %s %.3gx [no interval yet]", first ? "" : ";",
                    a.arm.c_str(), a.multiplier);
    else
      std::snprintf(buf, sizeof buf, "%s %s (waiting: %d run%s)", first ? "" : ";", a.arm.c_str(),
                    a.points, a.points == 1 ? "" : "s");
    line += buf;
    first = false;
  }
  char tail[80];
  std::snprintf(tail, sizeof tail, " at %.3g FLOPs (95%% prediction intervals)", s.target);
  return line + tail;
}

}  // namespace deepladder::fitting
