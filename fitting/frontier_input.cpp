// The checks before a frontier fit (see frontier_input.h).
#include "fitting/frontier_input.h"

#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "core/errors.h"
#include "fitting/table_format.h"

namespace deepladder::fitting {

std::string pointLocation(const ResultsTable& table, const RunPoint& point) {
  return point.source_line > 0 ? table.source + ":" + std::to_string(point.source_line)
                               : table.source;
}

void validateFrontierInput(const ResultsTable& table, const FrontierOptions& options) {
  if (!(options.c_ref > 0.0) || !std::isfinite(options.c_ref))
    throw UserError("--c-ref: must be a positive finite compute, got " +
                    messageNumber(options.c_ref));
  if (options.bootstrap < 0 || options.bootstrap > kMaxBootstrap)
    throw UserError("--bootstrap: must be from 0 to " + std::to_string(kMaxBootstrap) + ", got " +
                    std::to_string(options.bootstrap) +
                    ". Intervals settle within a few thousand resamples");
  if (!(options.ci_level > 0.0 && options.ci_level < 1.0))
    throw UserError("interval level must lie in (0, 1), got " + messageNumber(options.ci_level));
  if (options.joint && options.estimator == FrontierEstimator::Paper)
    throw UserError(
        "--joint: one E fitted jointly across arms is a fit of the robust estimator (the paper "
        "estimator fixes every arm's E to the baseline's). Add --estimator robust");
  for (double c : options.at)
    if (!(c > 0.0) || !std::isfinite(c))
      throw UserError("--at: every compute must be positive and finite, got " + messageNumber(c));
  if (table.points.empty())
    throw UserError(locatedMessage(table.source, 0, "", "has no runs", "finish some runs first"));

  std::map<std::string, std::vector<const RunPoint*>> arms;
  for (const auto& p : table.points) {
    if (!std::isfinite(p.compute_flops) || !std::isfinite(p.val_loss))
      throw UserError(locatedMessage(pointLocation(table, p), 0, p.arm,
                                     "compute or loss is NaN or infinite",
                                     "drop the run or give its finite value"));
    if (p.compute_flops <= 0.0)
      throw UserError(locatedMessage(pointLocation(table, p), 0, p.arm,
                                     "non-positive compute " + messageNumber(p.compute_flops),
                                     "compute_flops must be > 0"));
    if (p.val_loss <= 0.0)
      throw UserError(locatedMessage(pointLocation(table, p), 0, p.arm,
                                     "non-positive loss " + messageNumber(p.val_loss),
                                     "val_loss must be > 0"));
    arms[p.arm].push_back(&p);
  }
  if (!arms.count(options.baseline)) {
    std::string names;
    for (const auto& [name, pts] : arms) names += (names.empty() ? "" : ", ") + name;
    throw UserError(locatedMessage(table.source, 0, "",
                                   "has no baseline arm '" + options.baseline + "'",
                                   "the arms are: " + names + "; pick one with --baseline"));
  }
  for (const auto& [name, pts] : arms) {
    std::set<double> distinct;
    for (const auto* p : pts) distinct.insert(p->compute_flops);
    const int needed = name == options.baseline ? 3 : 2;
    if (static_cast<int>(distinct.size()) < needed)
      throw UserError(locatedMessage(table.source, 0, "arm " + name,
                                     "has " + std::to_string(distinct.size()) +
                                         " distinct compute value(s), fewer than the " +
                                         std::to_string(needed) + " parameters of its fit (" +
                                         (needed == 3 ? "E, A, gamma" : "A, gamma") + ")",
                                     "add rungs to this arm or leave it out"));
    // Least-squares slope of L against ln C must be negative.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto* p : pts) {
      const double x = std::log(p->compute_flops);
      sx += x, sy += p->val_loss, sxx += x * x, sxy += x * p->val_loss;
    }
    const double n = static_cast<double>(pts.size());
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    if (!(slope < 0.0))
      throw UserError(locatedMessage(table.source, 0, "arm " + name,
                                     "loss does not decrease with compute (slope of loss vs "
                                     "ln compute " +
                                         messageNumber(slope) + ")",
                                     "check the arm's runs: a frontier needs lower loss at "
                                     "higher compute"));
  }
}

}  // namespace deepladder::fitting
