// Backtests of the frontier and Chinchilla fits (see backtest.h). The refits go through the fits
// themselves (LadderFitter for the frontier, so every option of `fit` applies; approach 3 for
// Chinchilla); this file only splits the data, predicts and scores.
#include "fitting/backtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/errors.h"
#include "fitting/band_score.h"
#include "fitting/cancellation.h"
#include "fitting/chinchilla_intervals.h"
#include "fitting/fit_forms.h"
#include "fitting/frontier_input.h"
#include "fitting/frontier_model.h"
#include "fitting/ladder_fit.h"
#include "fitting/multipliers.h"
#include "fitting/prediction_interval.h"

namespace deepladder::fitting {
namespace {

void checkMaxK(int max_k) {
  if (max_k < 1)
    throw UserError("--backtest: must be at least 1 (rungs held out per arm), got " +
                    std::to_string(max_k));
}

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string tooShort(int rungs, int k, const char* what) {
  return "has " + plural(rungs, what, (std::string(what) + "s").c_str()) + ": holding out " +
         std::to_string(k) + " leaves " + std::to_string(std::max(0, rungs - k)) +
         ", fewer than the " + std::to_string(kMinRungsLeft) + " a backtest fits on";
}

void score(BacktestPoint& p) {
  p.rel_error = (p.predicted_loss - p.measured_loss) / p.measured_loss;
  p.has_interval = std::isfinite(p.lo) && std::isfinite(p.hi);
  p.covered = p.has_interval && p.lo <= p.measured_loss && p.measured_loss <= p.hi;
  p.fit_covered = std::isfinite(p.fit_lo) && std::isfinite(p.fit_hi) &&
                  p.fit_lo <= p.measured_loss && p.measured_loss <= p.fit_hi;
}

// The rungs of one arm (mean loss per distinct compute, by compute) and the runs behind them.
struct ArmRungs {
  std::vector<ComputeLoss> rungs;
  std::vector<RunPoint> runs;
};

}  // namespace

std::vector<BacktestSummaryRow> summarizeBacktest(const std::vector<BacktestPoint>& points) {
  std::vector<BacktestSummaryRow> out;
  std::set<int> ks;
  std::vector<std::string> arms;
  for (const auto& p : points) {
    ks.insert(p.k);
    if (std::find(arms.begin(), arms.end(), p.arm) == arms.end()) arms.push_back(p.arm);
  }
  for (int k : ks) {
    std::vector<std::string> groups = {"all"};
    if (!(arms.size() == 1 && arms[0] == "all"))
      groups.insert(groups.end(), arms.begin(), arms.end());
    for (const auto& arm : groups) {
      BacktestSummaryRow row;
      row.arm = arm;
      row.k = k;
      double sum_abs = 0, sum = 0, max_abs = 0;
      for (const auto& p : points) {
        if (p.k != k || (arm != "all" && p.arm != arm) || !std::isfinite(p.rel_error)) continue;
        ++row.points;
        sum_abs += std::fabs(p.rel_error);
        sum += p.rel_error;
        max_abs = std::max(max_abs, std::fabs(p.rel_error));
        row.intervals += p.has_interval;
        row.covered += p.covered;
        row.fit_intervals += std::isfinite(p.fit_lo) && std::isfinite(p.fit_hi);
        row.fit_covered += p.fit_covered;
      }
      row.missed = row.intervals - row.covered;
      row.no_interval = row.points - row.intervals;
      if (row.points == 0 && arm != "all") continue;
      if (row.points > 0) {
        row.mean_abs_error = sum_abs / row.points;
        row.max_abs_error = max_abs;
        row.bias = sum / row.points;
      }
      out.push_back(row);
    }
  }
  return out;
}

std::string backtestLine(const BacktestSummaryRow& all, double ci_level, const std::string& form) {
  std::string head =
      form == "chinchilla"
          ? "held out the " + plural(all.k, "point", "points") + " of largest compute"
          : "held out " + plural(all.k, "top rung", "top rungs") + " per arm";
  if (all.points == 0) return head + ": no rung could be held out";
  char body[160];
  std::snprintf(body, sizeof body, ": mean |error| %.2f%%, bias %+.2f%%", 100 * all.mean_abs_error,
                100 * all.bias);
  char tail[160];
  if (all.intervals > 0)
    std::snprintf(tail, sizeof tail, ", %g%% prediction intervals covered %d of %d", 100 * ci_level,
                  all.covered, all.intervals);
  else
    std::snprintf(tail, sizeof tail, " (no intervals)");
  std::string out = head + body + tail;
  if (all.intervals > 0 && all.no_interval > 0)
    out += " (" + std::to_string(all.no_interval) + " without an interval)";
  if (all.fit_intervals > 0)
    out += "; fit intervals alone covered " + std::to_string(all.fit_covered) + " of " +
           std::to_string(all.fit_intervals);
  return out;
}

namespace {

void finish(BacktestResult& r) {
  r.summary = summarizeBacktest(r.points);
  for (int k = 1; k <= r.max_k; ++k) {
    BacktestSummaryRow all;
    all.arm = "all";
    all.k = k;
    for (const auto& row : r.summary)
      if (row.k == k && row.arm == "all") all = row;
    r.lines.push_back(backtestLine(all, r.ci_level, r.form));
  }
}

}  // namespace

BacktestResult backtestFrontier(const ResultsTable& table, const FrontierOptions& options,
                                int max_k) {
  checkMaxK(max_k);
  validateFrontierInput(table, options);
  BacktestResult r;
  r.form = "frontier";
  r.law =
      fitForm(options.form).formula(options) + "; " + fitForm(options.form).description(options);
  r.max_k = max_k;
  r.ci_level = options.ci_level;
  r.bootstrap = options.bootstrap;
  r.resampled = options.bootstrap > 0 ? (options.residual_bootstrap ? "residuals" : "runs") : "";

  // Every arm's rungs, the baseline first, then the others by name.
  const std::map<std::string, std::vector<RunPoint>> by_arm = pointsByArm(table.points);
  if (!by_arm.count(options.baseline))
    throw UserError(table.source + ": no runs of the baseline arm \"" + options.baseline +
                    "\". Pass --baseline with one of the arms");
  std::vector<std::string> order = {options.baseline};
  for (const auto& [arm, pts] : by_arm)
    if (arm != options.baseline) order.push_back(arm);
  r.arms = order;
  std::map<std::string, ArmRungs> arms;
  for (const auto& [arm, pts] : by_arm) arms[arm] = {rungsOf(pts), pts};
  const std::vector<ComputeLoss>& base_rungs = arms.at(options.baseline).rungs;

  for (int k = 1; k <= max_k; ++k) {
    const int base_n = static_cast<int>(base_rungs.size());
    if (base_n - k < kMinRungsLeft) {
      for (const auto& arm : order)
        r.skipped.push_back({arm, k,
                             arm == options.baseline ? "baseline " + tooShort(base_n, k, "rung")
                                                     : "the baseline '" + options.baseline + "' " +
                                                           tooShort(base_n, k, "rung") +
                                                           ", and every arm's E is fitted on it"});
      continue;
    }
    // The fitted table: every arm with enough rungs, less its top k.
    ResultsTable kept;
    kept.source = table.source;
    std::map<std::string, double> top_kept;  // largest compute kept, per arm
    std::vector<std::string> held_arms;
    for (const auto& arm : order) {
      const ArmRungs& a = arms.at(arm);
      const int n = static_cast<int>(a.rungs.size());
      if (n - k < kMinRungsLeft) {
        r.skipped.push_back({arm, k, tooShort(n, k, "rung")});
        continue;
      }
      const double cut = a.rungs[n - k].compute;  // the k-th largest compute: held out from here
      top_kept[arm] = a.rungs[n - k - 1].compute;
      for (const auto& p : a.runs)
        if (p.compute_flops < cut) kept.points.push_back(p);
      held_arms.push_back(arm);
    }
    FrontierResult fit;
    std::vector<SkippedArm> refit_skipped;
    FrontierOptions refit_options = options;
    refit_options.nested_checks = false;  // a refit's flags are not what a backtest scores
    try {
      LadderFitter fitter(nullptr, table.source);
      fit = fitter.fit(kept, refit_options, /*lenient=*/true);
      refit_skipped = fitter.skipped();
    } catch (const UserError& e) {
      for (const auto& arm : held_arms) r.skipped.push_back({arm, k, e.what()});
      continue;
    }
    if (fit.cancelled) throw FitCancelled();
    for (const auto& s : refit_skipped) r.skipped.push_back({s.arm, k, s.reason});

    for (const auto& arm : held_arms) {
      size_t index = fit.arms.size();
      for (size_t i = 0; i < fit.arms.size(); ++i)
        if (fit.arms[i].arm == arm) index = i;
      if (index == fit.arms.size()) continue;  // listed in refit_skipped
      const ArmFit& f = fit.arms[index];
      if (const std::string problem = predictionProblem(f); !problem.empty()) {
        r.skipped.push_back({arm, k, problem});
        continue;
      }
      const ArmRungs& a = arms.at(arm);
      const int n = static_cast<int>(a.rungs.size());
      const std::vector<MeasuredMultiplier> measured =
          arm == options.baseline ? std::vector<MeasuredMultiplier>{}
                                  : measuredMultipliers(base_rungs, a.rungs);
      for (int rank = 1; rank <= k; ++rank) {
        const ComputeLoss& rung = a.rungs[n - rank];
        BacktestPoint p;
        p.arm = arm;
        p.k = k;
        p.rank = rank;
        p.compute = rung.compute;
        p.measured_loss = rung.loss;
        const LossPrediction prediction = scoreAgainstPrediction(fit, index, rung.compute, p);
        p.fit_lo = prediction.fit_lo;
        p.fit_hi = prediction.fit_hi;
        p.no_interval = prediction.no_interval;
        p.misfit = prediction.misfit;
        p.extrapolation = rung.compute / top_kept.at(arm);
        if (arm != options.baseline) {
          const ComputeLoss& base_rung = base_rungs[base_n - rank];
          p.multiplier_compute = base_rung.compute;
          for (const auto& m : measured)
            if (m.compute == base_rung.compute) p.measured_multiplier = m.multiplier;
          p.predicted_multiplier =
              formOf(fit).multiplier(fit.arms[0], f, base_rung.compute, fit.c_ref);
        }
        score(p);
        r.points.push_back(p);
      }
    }
  }
  finish(r);
  return r;
}

BacktestResult backtestChinchilla(const std::vector<SizePoint>& points,
                                  const ChinchillaOptions& options, int max_k,
                                  const FrontierOptions& interval) {
  checkMaxK(max_k);
  BacktestResult r;
  r.form = "chinchilla";
  r.law = "L(N, D) = E + A / N^alpha + B / D^beta (approach 3)";
  r.max_k = max_k;
  r.arms = {"all"};
  r.bootstrap = interval.bootstrap;
  r.ci_level = interval.ci_level;
  r.resampled = interval.bootstrap > 0 ? "points" : "";
  // Points by 6ND compute, largest last.
  std::vector<SizePoint> sorted = points;
  auto six_nd = [](const SizePoint& p) { return 6.0 * p.params * p.tokens; };
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const SizePoint& a, const SizePoint& b) { return six_nd(a) < six_nd(b); });
  const int n = static_cast<int>(sorted.size());
  for (int k = 1; k <= max_k; ++k) {
    if (n - k < kMinRungsLeft) {
      r.skipped.push_back({"all", k, "the data " + tooShort(n, k, "point")});
      continue;
    }
    const std::vector<SizePoint> kept(sorted.begin(), sorted.end() - k);
    ChinchillaWithIntervals fit;
    try {
      fit = fitChinchillaWithIntervals(kept, options, interval);
    } catch (const UserError& e) {
      r.skipped.push_back({"all", k, e.what()});
      continue;
    }
    for (int rank = 1; rank <= k; ++rank) {
      const SizePoint& s = sorted[n - rank];
      BacktestPoint p;
      p.arm = "all";
      p.k = k;
      p.rank = rank;
      p.compute = six_nd(s);
      p.measured_loss = s.loss;
      const LossPrediction prediction = predictChinchilla(fit, s.params, s.tokens);
      p.predicted_loss = prediction.loss;
      p.lo = prediction.lo;
      p.hi = prediction.hi;
      p.fit_lo = prediction.fit_lo;
      p.fit_hi = prediction.fit_hi;
      p.misfit = prediction.misfit;
      p.no_interval = prediction.no_interval;
      p.extrapolation = p.compute / six_nd(kept.back());
      score(p);
      r.points.push_back(p);
    }
  }
  finish(r);
  return r;
}

}  // namespace deepladder::fitting
