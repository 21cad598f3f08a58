// Ranking candidate runs by expected narrowing per FLOP (see suggest.h).
#include "fitting/suggest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "core/errors.h"
#include "core/parallel_for.h"
#include "fitting/frontier_fit.h"
#include "fitting/frontier_model.h"
#include "fitting/live_projection.h"
#include "fitting/suggest_draws.h"

namespace deepladder::fitting {

SuggestOptions defaultSuggestOptions() {
  SuggestOptions o;
  o.fit = defaultFrontierOptions();
  o.fit.bootstrap = 100;
  o.draws = 6;
  o.fit.residual_bootstrap = true;
  return o;
}

namespace {

// One standard error of a suggestion's narrowing (0 when unknown): the score counts only the
// narrowing beyond it, so a cheap run whose effect is within its own Monte-Carlo noise does not
// outrank a dear one that clearly narrows (per FLOP, any noise on the cheapest run would).
double noiseMargin(const Suggestion& s) {
  return std::isfinite(s.narrowing_se) ? s.narrowing_se : 0.0;
}

// hi - lo of M(target) for `arm` in `fit` (NaN when absent or undefined), and lo, hi.
struct Interval {
  double lo = kNaN, hi = kNaN;
  double width() const { return hi - lo; }
};

Interval intervalOf(const FrontierResult& fit, const std::string& arm, double target) {
  for (const auto& m : fit.multipliers)
    if (m.arm == arm)
      for (const auto& p : m.projected)
        // The fit interval: what more runs narrow (the misfit part of the prediction interval
        // is the law's, not the design's).
        if (p.compute == target)
          return std::isfinite(p.fit_lo) ? Interval{p.fit_lo, p.fit_hi}
                                         : Interval{p.ci_lo, p.ci_hi};
  return {};
}

// What the scorer knows about the current runs.
struct Current {
  FrontierResult fit;                                   // the ladder's fit (lenient), at {target}
  bool baseline_fits = false;                           // the baseline could be fitted
  std::map<std::string, std::vector<RunPoint>> by_arm;  // rung means (seeds averaged)
  std::map<std::string, std::vector<RunPoint>> runs_by_arm;  // every run
  std::map<std::string, size_t> arm_index;                   // arm -> index in fit.arms
  std::map<std::string, double> scatter;                     // arm -> s_a
  std::map<std::string, Interval> interval;                  // counted arm -> interval now
  std::set<std::string> unfitted;                           // arms (baseline included) not fittable
  std::map<std::pair<std::string, double>, int> rung_runs;  // (arm, C) -> runs averaged there
  std::map<std::string, double> seed_scatter;               // arm -> seed-to-seed scatter s_seed
  double seed_share = 0;        // q: the share of a run's deviation from the law that is its seed's
  bool seeds_measured = false;  // the seed scatter has kSeedScatterDof degrees of freedom
};

// What an extra seed of a rung already run `k` times is worth, relative to a new independent
// point of the same scatter. A run's deviation from the law is a rung's shared part (variance
// 1 - q of the scatter) plus its seed's own (q): the rung's mean has variance 1 - q + q / k, so
// the (k+1)-th seed adds 1 / (1 - q + q / (k + 1)) - 1 / (1 - q + q / k) of information, where
// an independent point adds 1. q = 1: 1 (seeds are independent); q = 0: 0 (a seed repeats its
// rung's deviation and adds nothing).
double extraSeedWorth(double q, int k) {
  if (k < 1) return 1.0;
  return 1.0 / (1.0 - q + q / (k + 1)) - 1.0 / (1.0 - q + q / k);
}

// The arm's own residual scatter when it has two or more residual degrees of freedom, else the
// pooled one: the residual bootstrap's rule (frontier_fit.cpp), so that a four-rung baseline whose
// curve happens to pass near its points does not draw near-duplicate outcomes.
double residualScatter(const ArmFit& f, double pooled) {
  const int p = f.E_free ? 3 : 2;
  if (f.n_points - p >= 2 && std::isfinite(f.rss)) return std::sqrt(f.rss / (f.n_points - p));
  return pooled;
}

// The refit with one more run of `arm` added to the current runs (every seed its own point, as
// the live projection fits them); returns the counted arms' intervals (by arm).
std::map<std::string, Interval> refitWith(const Current& cur, const std::string& arm,
                                          const RunPoint& extra,
                                          const std::vector<std::string>& counted,
                                          const FrontierOptions& fit_options,
                                          const std::string& baseline, double target) {
  ResultsTable t;
  t.source = "suggest";
  const std::vector<std::string> arms = arm == baseline ? counted : std::vector<std::string>{arm};
  std::vector<std::string> fitted{baseline};
  for (const auto& a : arms)
    if (a != baseline) fitted.push_back(a);
  for (const auto& a : fitted) {
    const auto it = cur.runs_by_arm.find(a);
    if (it == cur.runs_by_arm.end()) continue;
    t.points.insert(t.points.end(), it->second.begin(), it->second.end());
  }
  t.points.push_back(extra);
  const FrontierResult fit = fitFrontierKnownScatter(t, fit_options, cur.scatter);
  std::map<std::string, Interval> out;
  for (const auto& a : arms) out[a] = intervalOf(fit, a, target);
  return out;
}

std::string fmtFlops(double c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", c);
  return buf;
}

// Where the candidate sits among its arm's runs, in words.
std::string placement(const Current& cur, const std::string& arm, double c, bool is_baseline) {
  const auto it = cur.by_arm.find(arm);
  std::string where;
  if (it == cur.by_arm.end() || it->second.empty()) {
    where = "first run of " + arm;
  } else {
    double lo = HUGE_VAL, hi = 0, below = 0, above = HUGE_VAL;
    bool same = false;
    for (const auto& p : it->second) {
      lo = std::min(lo, p.compute_flops), hi = std::max(hi, p.compute_flops);
      if (p.compute_flops < c) below = std::max(below, p.compute_flops);
      if (p.compute_flops > c) above = std::min(above, p.compute_flops);
      same = same || std::fabs(p.compute_flops / c - 1.0) < 1e-6;
    }
    char buf[200];
    if (same) {
      const auto k = cur.rung_runs.find({arm, c});
      const int runs = k != cur.rung_runs.end() ? k->second : 1;
      if (cur.seeds_measured)
        std::snprintf(buf, sizeof buf,
                      "seed %d of a rung of %s (seeds' share of the scatter %.2f: worth %.2f of a "
                      "new point's information)",
                      runs + 1, arm.c_str(), cur.seed_share, extraSeedWorth(cur.seed_share, runs));
      else
        std::snprintf(buf, sizeof buf,
                      "seed %d of a rung of %s (seed scatter not measured yet: taken as shared by "
                      "the rung's seeds, worth nothing)",
                      runs + 1, arm.c_str());
    } else if (c > hi) {
      std::snprintf(buf, sizeof buf, "extends %s from %s to %s FLOPs (x%.2g)", arm.c_str(),
                    fmtFlops(hi).c_str(), fmtFlops(c).c_str(), c / hi);
    } else if (c < lo) {
      std::snprintf(buf, sizeof buf, "below %s's smallest run (%s FLOPs)", arm.c_str(),
                    fmtFlops(lo).c_str());
    } else {
      std::snprintf(buf, sizeof buf, "fills %s between %s and %s FLOPs", arm.c_str(),
                    fmtFlops(below).c_str(), fmtFlops(above).c_str());
    }
    where = buf;
  }
  if (is_baseline) where += "; a baseline run moves every arm's multiplier";
  return where;
}

// An arm its points fit exactly (no more distinct computes than its fitted parameters) has no
// interval (frontier_fit.cpp): its next rung is needed as much as an unfitted arm's.
void markExactlyFittedArms(Current& cur) {
  for (const ArmFit& f : cur.fit.arms) {
    std::set<double> computes;
    if (cur.by_arm.count(f.arm))
      for (const auto& p : cur.by_arm.at(f.arm)) computes.insert(p.compute_flops);
    if (f.n_points > 0 && int(computes.size()) - (f.n_points - f.dof) <= 0)
      cur.unfitted.insert(f.arm);
  }
}

// The ladder now, as the scorer sees it: rung means and every run, the lenient fit and its arms'
// scatter, the seeds' share of it, the counted arms and their intervals. Fills result's unfitted
// arms, seed share, counted arms and width before.
Current currentLadder(const ResultsTable& runs, const std::vector<ladder::CandidateRun>& candidates,
                      const SuggestOptions& options, const FrontierOptions& fit_options,
                      SuggestResult& result) {
  const std::string& baseline = options.fit.baseline;
  Current cur;
  // The scorer fits every run as its own point, as the live projection does (an extra seed adds a
  // point, counted for what the seeds' measured share of the scatter makes it worth); rung means
  // are kept for where an extra seed is drawn and for the seed-to-seed scatter.
  std::map<std::pair<std::string, double>, std::vector<double>> rungs;
  for (const auto& p : runs.points) rungs[{p.arm, p.compute_flops}].push_back(p.val_loss);
  cur.runs_by_arm = pointsByArm(runs.points);  // in the order the ladder's fit resamples them
  double within = 0;
  int within_dof = 0;
  for (const auto& [key, losses] : rungs) {
    double mean = 0;
    for (double l : losses) mean += l / losses.size();
    for (double l : losses) within += (l - mean) * (l - mean);
    within_dof += static_cast<int>(losses.size()) - 1;
    RunPoint p;
    p.arm = key.first;
    p.compute_flops = key.second;
    p.val_loss = mean;
    cur.by_arm[p.arm].push_back(p);
    cur.rung_runs[key] = static_cast<int>(losses.size());
  }

  // The current fit, lenient: arms with too few rungs are "unfitted".
  LadderFitter fitter(nullptr, runs.source);
  FrontierOptions current_options = fit_options;
  current_options.threads = std::max(1, options.threads);
  if (cur.by_arm.count(baseline)) {
    try {
      cur.fit = fitter.fit(runs, current_options, /*lenient=*/true);
      cur.baseline_fits = true;
      result.unfitted = fitter.skipped();
    } catch (const UserError& e) {
      result.unfitted.push_back({baseline, e.what()});
    }
  } else {
    result.unfitted.push_back({baseline, "no runs of the baseline yet"});
  }
  for (const auto& s : result.unfitted) cur.unfitted.insert(s.arm);
  if (!cur.baseline_fits) cur.unfitted.insert(baseline);
  for (const auto& c : candidates)
    if (!cur.by_arm.count(c.run.arm)) cur.unfitted.insert(c.run.arm);
  markExactlyFittedArms(cur);

  double pooled_rss = 0;
  int pooled_dof = 0;
  for (size_t i = 0; i < cur.fit.arms.size(); ++i) {
    const ArmFit& f = cur.fit.arms[i];
    cur.arm_index[f.arm] = i;
    const int p = f.E_free ? 3 : 2;
    if (f.n_points > p && std::isfinite(f.rss)) pooled_rss += f.rss, pooled_dof += f.n_points - p;
  }
  const double pooled = pooled_dof > 0 ? std::sqrt(pooled_rss / pooled_dof) : 0.0;
  for (const ArmFit& f : cur.fit.arms) cur.scatter[f.arm] = residualScatter(f, pooled);

  // Seed-to-seed scatter: the pooled within-rung scatter of the rungs run more than once, once it
  // has two degrees of freedom; until then the arm's residual scatter stands in (an upper bound).
  // The seed share q is that variance over the runs' pooled residual variance around the laws,
  // at most 1; until it can be measured, q = 0: a rung's deviation from the law is taken to be
  // shared by its seeds, so extra seeds score nothing, and the adaptive loop
  // (adaptive_policy.h) buys the cheapest seeds to measure it.
  cur.seeds_measured = within_dof >= kSeedScatterDof;
  for (const auto& [arm, sc] : cur.scatter)
    cur.seed_scatter[arm] = cur.seeds_measured ? std::sqrt(within / within_dof) : sc;
  if (cur.seeds_measured && pooled > 0)
    cur.seed_share = std::min(1.0, within / within_dof / (pooled * pooled));
  result.seed_share = cur.seeds_measured ? cur.seed_share : kNaN;
  result.seed_dof = within_dof;

  // Counted arms: the asked ones that can be fitted (all fittable non-baseline arms by default).
  for (const auto& f : cur.fit.arms)
    if (!f.no_fit.empty()) result.unfitted.push_back({f.arm, f.no_fit});  // e.g. a loss below E
  for (const auto& m : cur.fit.multipliers) {
    const ArmFit& f = cur.fit.arms[cur.arm_index.at(m.arm)];
    if (f.no_fit.empty() &&
        (options.arms.empty() ||
         std::find(options.arms.begin(), options.arms.end(), m.arm) != options.arms.end()))
      result.counted_arms.push_back(m.arm);
  }
  // The intervals now, by the scorer's own procedure (the noise known, as in every refit below).
  double width_before = 0;
  if (!result.counted_arms.empty()) {
    ResultsTable now;
    now.source = "suggest";
    for (const auto& [arm, pts] : cur.runs_by_arm)
      if (arm == baseline || std::find(result.counted_arms.begin(), result.counted_arms.end(),
                                       arm) != result.counted_arms.end())
        now.points.insert(now.points.end(), pts.begin(), pts.end());
    const FrontierResult fit = fitFrontierKnownScatter(now, fit_options, cur.scatter);
    for (const auto& a : result.counted_arms) {
      cur.interval[a] = intervalOf(fit, a, options.target);
      width_before += cur.interval[a].width();
    }
  }
  result.width_before = result.counted_arms.empty() ? kNaN : width_before;
  return cur;
}

// What the scorer weighs every candidate against.
struct ScoringContext {
  const Current& cur;
  const std::vector<std::string>& counted_arms;
  const std::string& baseline;
  const std::vector<CommonDraw>& draws;
  const FrontierOptions& fit_options;  // at {target}, one thread
  double target;
};

// The counted intervals after one more run of `arm` at compute c, summed over the draws whose
// refit succeeded: each draw puts the run's loss on a replicate's curve (or, for an extra seed, at
// its rung's mean) plus its quantile of the scatter.
struct DrawnWidths {
  std::map<std::string, double> sum_lo, sum_hi, sum_width;  // per refitted arm
  double total = 0, total_sq = 0;  // of each draw's summed width, and of its square
  int used = 0;                    // draws whose refit succeeded
};

DrawnWidths drawRefits(const ScoringContext& ctx, const std::string& arm, double c) {
  const Current& cur = ctx.cur;
  const size_t index = cur.arm_index.at(arm);
  const ArmFit& f = cur.fit.arms[index];
  const double sigma = cur.scatter.at(arm);
  DrawnWidths w;
  // The replicates' curves at C, sorted: draw k takes the one at its quantile u_k.
  std::vector<double> predicted;
  for (const auto& replicate : cur.fit.bootstrap_draws) {
    const FrontierDraw& r = replicate.at(index);
    const double l = frontierLoss(c, cur.fit.c_ref, r.E, r.A, r.gamma);
    if (std::isfinite(l)) predicted.push_back(l);
  }
  std::sort(predicted.begin(), predicted.end());
  for (const CommonDraw& d : ctx.draws) {
    double curve = frontierLoss(c, cur.fit.c_ref, f.E, f.A, f.gamma);
    if (!predicted.empty())
      curve =
          predicted[std::min(predicted.size() - 1, static_cast<size_t>(d.u * predicted.size()))];
    RunPoint extra;
    extra.arm = arm;
    extra.compute_flops = c;
    if (cur.rung_runs.count({arm, c})) {
      double mean = 0;  // a repeat: around the rung's own mean, with the seed scatter
      for (const auto& p : cur.by_arm.at(arm))
        if (p.compute_flops == c) mean = p.val_loss;
      extra.val_loss = mean + d.z * cur.seed_scatter.at(arm);
    } else
      extra.val_loss = curve + d.z * sigma;
    if (!std::isfinite(extra.val_loss) || extra.val_loss <= 0) continue;
    std::map<std::string, Interval> after;
    try {
      after =
          refitWith(cur, arm, extra, ctx.counted_arms, ctx.fit_options, ctx.baseline, ctx.target);
    } catch (const std::exception&) {
      continue;
    }
    bool finite = true;
    for (const auto& [a, iv] : after) finite = finite && std::isfinite(iv.width());
    if (!finite) continue;
    ++w.used;
    double total = 0;  // this draw's summed width over the refitted arms
    for (const auto& [a, iv] : after) {
      w.sum_lo[a] += iv.lo, w.sum_hi[a] += iv.hi, w.sum_width[a] += iv.width();
      total += iv.width();
    }
    w.total += total, w.total_sq += total * total;
  }
  return w;
}

// The candidate's expected narrowing of the counted intervals, its score per FLOP and why; or
// needed (its arm or sweep cannot be fitted without it), or no score, with the reason.
void scoreCandidate(const ScoringContext& ctx, Suggestion& s) {
  const Current& cur = ctx.cur;
  const std::string& arm = s.candidate.run.arm;
  const double c = s.cost_flops;
  const bool is_baseline = arm == ctx.baseline;
  std::string where = placement(cur, arm, c, is_baseline);
  if (s.candidate.kind == ladder::CandidateKind::kSweepExtension) {
    // The rung's fitted point is the best of a sweep that may not contain the best: finding it
    // comes before narrowing any interval.
    s.needed = true;
    s.why = "needed: " + arm + " " + s.candidate.run.size +
            "'s best sweep point is at the edge of the values tried; this tries one step past "
            "it (" +
            s.candidate.run.sweep_label + ")";
    return;
  }
  if (cur.unfitted.count(arm) || !cur.baseline_fits) {
    std::set<double> have;
    if (cur.by_arm.count(arm))
      for (const auto& p : cur.by_arm.at(arm)) have.insert(p.compute_flops);
    s.needed = !have.count(c);
    s.why = std::string(s.needed ? "needed: " : "") + arm +
            " cannot be fitted with an interval yet (too few rungs); " + where;
    return;
  }
  const bool counted = is_baseline || std::find(ctx.counted_arms.begin(), ctx.counted_arms.end(),
                                                arm) != ctx.counted_arms.end();
  if (!counted) {
    s.narrowing = 0, s.score = 0, s.width_after = s.width_before;
    s.why = where + "; its arm's interval is not counted";
    return;
  }
  // The refit counts an extra seed as an independent point: it narrows by what the seed's own
  // share of the scatter is worth (extraSeedWorth), the rest repeats its rung's deviation.
  const auto repeats = cur.rung_runs.find({arm, c});
  const double worth =
      repeats == cur.rung_runs.end() ? 1.0 : extraSeedWorth(cur.seed_share, repeats->second);
  if (worth <= 0) {
    s.narrowing = 0, s.narrowing_se = 0, s.score = 0, s.width_after = s.width_before;
    s.why = where + "; expected to leave the interval as it is";
    return;
  }
  const DrawnWidths w = drawRefits(ctx, arm, c);
  const int used = w.used;
  s.draws_used = used;
  if (used == 0) {
    s.why = where + "; no refit succeeded";
    return;
  }
  double after_total = s.width_before, best_gain = -HUGE_VAL;
  for (const auto& [a, width] : w.sum_width) {
    const double mean = width / used;
    after_total += mean - cur.interval.at(a).width();
    const double gain = cur.interval.at(a).width() - mean;
    if (gain > best_gain) {
      best_gain = gain;
      s.shown_arm = a;
      s.before_lo = cur.interval.at(a).lo, s.before_hi = cur.interval.at(a).hi;
      s.after_lo = w.sum_lo.at(a) / used, s.after_hi = w.sum_hi.at(a) / used;
    }
  }
  // Standard error of the mean over the draws (the Latin hypercube makes it an upper bound).
  const double mean_total = w.total / used;
  s.narrowing_se =
      used > 1 ? std::sqrt(std::max(0.0, w.total_sq / used - mean_total * mean_total) / (used - 1))
               : kNaN;
  if (worth < 1.0) {  // an extra seed: the refit counted it as a new independent point
    after_total = s.width_before - worth * (s.width_before - after_total);
    s.after_lo = s.before_lo + worth * (s.after_lo - s.before_lo);
    s.after_hi = s.before_hi + worth * (s.after_hi - s.before_hi);
    s.narrowing_se *= worth;
  }
  s.width_after = after_total;
  s.narrowing = s.width_before - s.width_after;
  s.score = std::max(0.0, s.narrowing - noiseMargin(s)) / c;
  char buf[200];
  std::snprintf(buf, sizeof buf, "; %s at %.3g: [%.3g, %.3g] -> [%.3g, %.3g] expected (%+.0f%%)",
                s.shown_arm.c_str(), ctx.target, s.before_lo, s.before_hi, s.after_lo, s.after_hi,
                100.0 * ((s.after_hi - s.after_lo) / (s.before_hi - s.before_lo) - 1.0));
  s.why = where + buf;
}

// Needed first (cheapest first); then by score, best first; then those without a positive score,
// cheapest first (nothing is expected to narrow the interval beyond its noise: the cheapest run
// costs least and measures the seed scatter when it repeats a rung); then those without an
// estimate; ties by cost, then name.
void rankSuggestions(std::vector<Suggestion>& out) {
  auto tier = [](const Suggestion& s) {
    if (s.needed) return 0;
    if (!std::isfinite(s.narrowing)) return 3;
    return s.score > 0 ? 1 : 2;
  };
  auto key = [](const Suggestion& s, int t) { return t == 1 ? s.score : 0.0; };
  std::stable_sort(out.begin(), out.end(), [&](const Suggestion& a, const Suggestion& b) {
    const int ta = tier(a), tb = tier(b);
    if (ta != tb) return ta < tb;
    const double ka = key(a, ta), kb = key(b, tb);
    if (ka != kb) return ka > kb;
    if (a.cost_flops != b.cost_flops) return a.cost_flops < b.cost_flops;
    return a.candidate.run.name < b.candidate.run.name;
  });
}

}  // namespace

SuggestResult suggestRuns(const ResultsTable& runs,
                          const std::vector<ladder::CandidateRun>& candidates,
                          const SuggestOptions& options) {
  if (!(options.target > 0) || !std::isfinite(options.target))
    throw UserError("--target: must be a positive compute");
  if (options.draws < 1) throw UserError("suggest: draws must be >= 1");
  const std::string& baseline = options.fit.baseline;
  FrontierOptions fit_options = options.fit;
  fit_options.at = {options.target};
  fit_options.threads = 1;

  SuggestResult result;
  result.target = options.target;
  const Current cur = currentLadder(runs, candidates, options, fit_options, result);

  // Candidates within the budget.
  std::vector<Suggestion> out;
  for (const auto& c : candidates) {
    if (options.budget > 0 && c.run.flops > options.budget) continue;
    Suggestion s;
    s.candidate = c;
    s.cost_flops = c.run.flops;
    s.hours = c.run.est_seconds / 3600.0;
    s.width_before = result.width_before;
    out.push_back(std::move(s));
  }

  const std::vector<CommonDraw> draws = commonDraws(options.seed, options.draws);
  const ScoringContext ctx{cur, result.counted_arms, baseline, draws, fit_options, options.target};
  const int threads = std::max(1, std::min<int>(options.threads, static_cast<int>(out.size())));
  parallelFor(threads, [&](int t) {
    for (size_t i = t; i < out.size(); i += threads) scoreCandidate(ctx, out[i]);
  });
  rankSuggestions(out);
  result.ranked = std::move(out);
  return result;
}

}  // namespace deepladder::fitting
