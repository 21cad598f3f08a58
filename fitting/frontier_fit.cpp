// Frontier fit, bootstrap and multipliers (see frontier_fit.h). The Ceres work is in
// frontier_solver.cpp, the paper estimator's lines in log_excess_line.cpp; this file checks the
// data, resamples (every resample fitted with the same estimator) and assembles the result.
#include "fitting/frontier_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "core/errors.h"
#include "core/parallel_for.h"
#include "fitting/cancellation.h"
#include "fitting/fit_diagnostics.h"
#include "fitting/fit_forms.h"
#include "fitting/frontier_input.h"
#include "fitting/frontier_model.h"
#include "fitting/frontier_solver.h"
#include "fitting/log_excess_line.h"
#include "fitting/multipliers.h"
#include "fitting/prediction_interval.h"
#include "fitting/student_t.h"
#include "fitting/sweep_envelope.h"
#include "fitting/table_format.h"

namespace deepladder::fitting {
namespace {

// Baseline first, then the other arms in name order.
std::vector<ArmData> groupByArm(const ResultsTable& table, const std::string& baseline) {
  std::map<std::string, ArmData> by_name;
  for (const auto& p : table.points) {
    auto& arm = by_name[p.arm];
    arm.name = p.arm;
    arm.compute.push_back(p.compute_flops);
    arm.loss.push_back(p.val_loss);
  }
  std::vector<ArmData> arms;
  arms.push_back(by_name.at(baseline));
  for (auto& [name, arm] : by_name)
    if (name != baseline) arms.push_back(std::move(arm));
  return arms;
}

// --- bootstrap ------------------------------------------------------------------------------

// Samples of one replicate: per arm E, A, gamma; per non-baseline arm M at each `at`, per decade.
struct Replicate {
  bool ok = false;
  std::vector<double> E, A, gamma;
  std::vector<std::vector<double>> extra;       // [arm]: the form's own parameters
  std::vector<std::vector<double>> multiplier;  // [arm-1][at]
  std::vector<double> per_decade;               // [arm-1]
};

ArmData resample(const ArmData& arm, int min_distinct, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, arm.compute.size() - 1);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    ArmData out;
    out.name = arm.name;
    std::set<double> distinct;
    for (size_t i = 0; i < arm.compute.size(); ++i) {
      const size_t j = pick(rng);
      out.compute.push_back(arm.compute[j]);
      out.loss.push_back(arm.loss[j]);
      distinct.insert(arm.compute[j]);
    }
    if (static_cast<int>(distinct.size()) >= min_distinct) return out;
  }
  return arm;
}

// Each arm resamples from its own stream, keyed by (seed, replicate, arm name): an arm's
// replicates do not depend on which other arms are fitted with it, so fitting the baseline with
// one arm gives exactly that arm's share of the whole ladder's fit (fitting/ladder_fit.h).
std::mt19937_64 armStream(std::uint64_t seed, int index, const std::string& arm) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the arm's name
  for (unsigned char c : arm) h = (h ^ c) * 1099511628211ull;
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(h),
                    static_cast<std::uint32_t>(h >> 32)};
  return std::mt19937_64(seq);
}

// Residual bootstrap: every run keeps its compute; its loss is the point fit's curve there plus
// a residual of the same arm drawn with replacement, times sqrt(n / (n - p)) (p: the arm's free
// parameters) so the draws' variance is unbiased. An arm with fewer than two residual degrees of
// freedom (three rungs for the baseline: its fit passes through them) has no scatter of its own
// to resample; its residuals are drawn from N(0, pooled^2), the scatter of the arms that have.
// `known` > 0 and finite: every residual is drawn from N(0, known^2) instead
// (fitFrontierKnownScatter; 0 or less: not known).
ArmData residualResample(const FitForm& form, const ArmData& arm, const ArmFit& fit, double c_ref,
                         int p, double pooled, double known, std::mt19937_64& rng) {
  const size_t n = arm.compute.size();
  std::vector<double> curve(n), residual(n);
  for (size_t i = 0; i < n; ++i) {
    curve[i] = formLoss(form, fit, arm.compute[i], c_ref);
    residual[i] = arm.loss[i] - curve[i];
  }
  ArmData out = arm;
  const bool is_known = known > 0 && std::isfinite(known);
  if (is_known || static_cast<int>(n) - p < 2) {
    std::normal_distribution<double> gauss(0.0, is_known ? known : pooled);
    for (size_t i = 0; i < n; ++i) out.loss[i] = curve[i] + gauss(rng);
    return out;
  }
  const double inflate = std::sqrt(double(n) / double(n - p));
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  for (size_t i = 0; i < n; ++i) out.loss[i] = curve[i] + inflate * residual[pick(rng)];
  return out;
}

// sqrt(sum rss / sum dof) over the arms with residual degrees of freedom (0 when none has).
double pooledScatter(const FitForm& form, const std::vector<ArmData>& arms,
                     const std::vector<ArmFit>& fits, bool joint, double c_ref) {
  double rss = 0;
  int dof = 0;
  for (size_t a = 0; a < arms.size(); ++a) {
    const int p = (a == 0 || joint) ? 3 : 2;
    const int n = static_cast<int>(arms[a].compute.size());
    if (n <= p || !std::isfinite(fits[a].A) || !std::isfinite(fits[a].gamma)) continue;
    for (size_t i = 0; i < arms[a].compute.size(); ++i) {
      const double r = arms[a].loss[i] - formLoss(form, fits[a], arms[a].compute[i], c_ref);
      rss += r * r;
    }
    dof += n - p;
  }
  return dof > 0 ? std::sqrt(rss / dof) : 0.0;
}

// Each arm's given residual scatter (empty: estimated from the fit's residuals).
using KnownScatter = std::map<std::string, double>;

// `point`: the point fit, for the residual bootstrap (null: resample runs); `pooled`: its
// pooled residual scatter; `known`: arms whose residuals are drawn from N(0, s^2).
Replicate runReplicate(const std::vector<ArmData>& arms, const FrontierOptions& options, int index,
                       const std::vector<ArmFit>* point, double pooled, const KnownScatter& known) {
  const FitForm& form = fitForm(options.form);
  std::vector<ArmData> sample;
  for (size_t a = 0; a < arms.size(); ++a) {
    std::mt19937_64 rng = armStream(options.seed, index, arms[a].name);
    const int p = (a == 0 || options.joint) ? 3 : 2;
    const auto s = known.find(arms[a].name);
    sample.push_back(point ? residualResample(form, arms[a], (*point)[a], options.c_ref, p, pooled,
                                              s != known.end() ? s->second : 0.0, rng)
                           : resample(arms[a], a == 0 ? 3 : 2, rng));
  }
  Replicate rep;
  std::vector<ArmFit> fits;
  try {
    fits = form.solve(sample, options, false);
  } catch (const FitCancelled&) {
    return rep;
  } catch (const std::exception&) {
    return rep;
  }
  for (const auto& f : fits) {
    rep.E.push_back(f.E);
    rep.A.push_back(f.A);
    rep.gamma.push_back(f.gamma);
    rep.extra.push_back(f.extra);
  }
  const double per_decade_at = options.at.empty() ? options.c_ref : options.at.front();
  for (size_t a = 1; a < fits.size(); ++a) {
    std::vector<double> m;
    for (double c : options.at) m.push_back(form.multiplier(fits[0], fits[a], c, options.c_ref));
    rep.multiplier.push_back(m);
    rep.per_decade.push_back(form.perDecade(fits[0], fits[a], per_decade_at, options.c_ref));
  }
  rep.ok = true;
  return rep;
}

std::vector<Replicate> runBootstrap(const std::vector<ArmData>& arms,
                                    const FrontierOptions& options,
                                    const std::vector<ArmFit>* point, const KnownScatter& known) {
  const double pooled =
      point ? pooledScatter(fitForm(options.form), arms, *point, options.joint, options.c_ref)
            : 0.0;
  std::vector<Replicate> reps(options.bootstrap);
  const int threads = std::max(1, std::min(options.threads, options.bootstrap));
  parallelFor(threads, [&](int t) {
    // Between resamples: a cancelled fit stops here (and Ceres aborts the one in flight).
    for (int i = t; i < options.bootstrap && !isCancelled(options.cancellation); i += threads)
      reps[i] = runReplicate(arms, options, i, point, pooled, known);
  });
  return reps;
}

// Under the paper estimator ln(L - E) needs every point of an E-shared arm above the baseline's
// E. The paper's ladder figures leave such an arm without a fit (numpy's log gives NaN, and so
// does the regression), the other arms unaffected; so does this fit, and says why in `no_fit`.
void explainArmsBelowSharedE(const ResultsTable& table, std::vector<ArmFit>& fits,
                             const std::string& baseline) {
  const double E = fits[0].E;
  for (size_t a = 1; a < fits.size(); ++a) {
    if (std::isfinite(fits[a].gamma)) continue;
    for (const auto& p : table.points) {
      if (p.arm != fits[a].arm || p.val_loss > E) continue;
      fits[a].no_fit = locatedMessage(
          pointLocation(table, p), 0, "arm " + p.arm,
          "no fit: loss " + messageNumber(p.val_loss) + " at compute " +
              messageNumber(p.compute_flops) + " is at or below the irreducible loss E = " +
              messageNumber(E) + " fitted on the baseline '" + baseline +
              "', so ln(L - E) is undefined and the paper estimator's OLS line cannot be drawn "
              "(the paper's code gives NaN too)",
          "the robust estimator (--estimator robust) fits this arm in loss space");
      break;
    }
  }
}

// gamma -+ t_{(1+level)/2, dof} se for every fit with a standard error.
void addTIntervals(ArmFit& f, double level) {
  if (!(f.dof > 0) || !std::isfinite(f.gamma_se) || !std::isfinite(f.gamma)) return;
  const double t = studentTQuantile(0.5 * (1.0 + level), f.dof);
  f.gamma_t_lo = f.gamma - t * f.gamma_se;
  f.gamma_t_hi = f.gamma + t * f.gamma_se;
}

// Finite samples of one quantity across the successful replicates.
template <typename Get>
std::vector<double> collect(const std::vector<Replicate>& reps, Get get) {
  std::vector<double> v;
  for (const auto& r : reps)
    if (r.ok) {
      const double x = get(r);
      if (std::isfinite(x)) v.push_back(x);
    }
  return v;
}

}  // namespace

// --- public ---------------------------------------------------------------------------------

double percentile(std::vector<double> samples, double q) {
  if (samples.empty()) return kNaN;
  std::sort(samples.begin(), samples.end());
  const double pos = q * (samples.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, samples.size() - 1);
  return samples[lo] + (pos - lo) * (samples[hi] - samples[lo]);
}

namespace {

bool anyKnown(const KnownScatter& known) {
  for (const auto& [arm, s] : known)
    if (s > 0 && std::isfinite(s)) return true;
  return false;
}

FrontierResult fitWithScatter(const ResultsTable& table, const FrontierOptions& options,
                              const KnownScatter& known) {
  validateFrontierInput(table, options);
  const FitForm& form = fitForm(options.form);
  form.checkOptions(options);
  const std::vector<ArmData> arms = groupByArm(table, options.baseline);

  FrontierResult result;
  result.form = form.name();
  if (form.name() == "pinned-e") {
    result.pinned_E = options.pinned_E;
    result.pinned_E_source = options.pinned_E_source;
  }
  result.estimator = options.estimator;
  result.c_ref = options.c_ref;
  result.baseline = options.baseline;
  result.joint = options.joint;
  result.ci_level = options.ci_level;
  result.bootstrap_requested = options.bootstrap;
  if (isCancelled(options.cancellation)) {  // cancelled before it started: nothing is fitted
    result.cancelled = true;
    return result;
  }
  try {
    result.arms = form.solve(arms, options, true);
  } catch (const FitCancelled&) {
    result.cancelled = true;
    return result;
  }
  const bool power_law = form.name() == "frontier";
  const bool paper = power_law && options.estimator == FrontierEstimator::Paper;
  if (paper) explainArmsBelowSharedE(table, result.arms, options.baseline);
  for (size_t a = 0; a < result.arms.size(); ++a) {
    ArmFit& f = result.arms[a];
    f.method = power_law ? armFitMethod(options.estimator, options.joint, a == 0)
                         : form.name() + (f.E_free ? "_e_free" : "_e_fixed");
    addTIntervals(f, options.ci_level);
  }
  const ArmFit& base = result.arms[0];
  if (paper) {
    // The baseline's own line with its E fixed (what the paper's ladder figure prints for it).
    if (const auto line = fitLogExcessLine(arms[0].compute, arms[0].loss, base.E, options.c_ref)) {
      ArmFit& l = result.baseline_line;
      l.arm = base.arm;
      l.method = armFitMethod(options.estimator, false, false);
      l.E = base.E, l.A = line->A, l.gamma = line->gamma;
      l.A_se = line->A_se, l.gamma_se = line->slope_se;
      l.n_points = line->n, l.dof = line->dof;
      addTIntervals(l, options.ci_level);
    }
  }

  // Multipliers from the point estimates.
  std::map<std::string, std::vector<RunPoint>> points_by_arm;
  for (const auto& p : table.points) points_by_arm[p.arm].push_back(p);
  const auto base_rungs = rungsOf(points_by_arm[options.baseline]);
  for (size_t a = 1; a < result.arms.size(); ++a) {
    const ArmFit& arm = result.arms[a];
    ArmMultipliers m;
    m.arm = arm.arm;
    m.measured = measuredMultipliers(base_rungs, rungsOf(points_by_arm[arm.arm]));
    for (double c : options.at)
      m.projected.push_back({c, form.multiplier(base, arm, c, options.c_ref)});
    m.per_decade = form.perDecade(
        base, arm, options.at.empty() ? options.c_ref : options.at.front(), options.c_ref);
    result.multipliers.push_back(m);
  }

  // Bootstrap intervals.
  if (options.bootstrap > 0) {
    result.residual_bootstrap = options.residual_bootstrap;
    const auto reps =
        runBootstrap(arms, options,
                     options.residual_bootstrap || anyKnown(known) ? &result.arms : nullptr, known);
    if (isCancelled(options.cancellation)) {
      // No intervals from part of the resamples: say how many were fitted, and that it stopped.
      result.cancelled = true;
      for (const auto& r : reps) result.bootstrap_used += r.ok;
      return result;
    }
    const double lo = (1.0 - options.ci_level) / 2, hi = 1.0 - lo;
    for (const auto& r : reps) {
      if (!r.ok) continue;
      result.bootstrap_used += 1;
      std::vector<FrontierDraw> draw;
      for (size_t a = 0; a < r.E.size(); ++a)
        draw.push_back(result.arms[a].no_fit.empty()
                           ? FrontierDraw{r.E[a], r.A[a], r.gamma[a], r.extra[a]}
                           : FrontierDraw{});  // no band without a fit
      result.bootstrap_draws.push_back(std::move(draw));
    }
    // An arm with no residual degrees of freedom (no more distinct computes than fitted
    // parameters) passes through every resample's points exactly: the percentiles would only
    // say which points were drawn, not how uncertain its law is. It gets no intervals (fit warns).
    std::vector<bool> exact(result.arms.size());
    for (size_t a = 0; a < result.arms.size(); ++a) {
      const ArmFit& f = result.arms[a];
      std::set<double> computes;
      for (const auto& p : points_by_arm[f.arm]) computes.insert(p.compute_flops);
      exact[a] = f.n_points > 0 && int(computes.size()) - (f.n_points - f.dof) <= 0;
    }
    for (size_t a = 0; a < result.arms.size(); ++a) {
      ArmFit& f = result.arms[a];
      const auto E = collect(reps, [a](const Replicate& r) { return r.E[a]; });
      const auto A = collect(reps, [a](const Replicate& r) { return r.A[a]; });
      const auto g = collect(reps, [a](const Replicate& r) { return r.gamma[a]; });
      if (f.E_free && !exact[a]) f.E_ci_lo = percentile(E, lo), f.E_ci_hi = percentile(E, hi);
      for (const auto& r : reps)
        f.bootstrap_used += r.ok && std::isfinite(r.A[a]) && std::isfinite(r.gamma[a]);
      // An arm without a point fit has no intervals either: the resamples that happened to miss
      // its low points describe other data, not this arm's fit.
      if (!f.no_fit.empty() || exact[a]) continue;
      f.A_ci_lo = percentile(A, lo), f.A_ci_hi = percentile(A, hi);
      f.gamma_ci_lo = percentile(g, lo), f.gamma_ci_hi = percentile(g, hi);
      if (a == 0) continue;
      ArmMultipliers& m = result.multipliers[a - 1];
      for (size_t k = 0; k < options.at.size(); ++k) {
        const auto s = collect(reps, [a, k](const Replicate& r) { return r.multiplier[a - 1][k]; });
        m.projected[k].ci_lo = percentile(s, lo);
        m.projected[k].ci_hi = percentile(s, hi);
      }
      const auto pd = collect(reps, [a](const Replicate& r) { return r.per_decade[a - 1]; });
      m.per_decade_lo = percentile(pd, lo);
      m.per_decade_hi = percentile(pd, hi);
    }
  }
  return result;
}

}  // namespace

FrontierResult fitFrontier(const ResultsTable& table, const FrontierOptions& options) {
  // A sweep's envelope first (the best point of every rung), then the fit, its prediction
  // intervals, then what the fit says about its own trust.
  const SweepEnvelope envelope = sweepEnvelope(table);
  FrontierResult fit = fitWithScatter(envelope.table, options, {});
  fit.sweep = envelope.rungs;
  addPredictionIntervals(fit, envelope.table, options);
  fit.diagnostics = diagnoseFrontierFit(fit, envelope.table, options);
  return fit;
}

FrontierResult fitFrontierKnownScatter(const ResultsTable& table, const FrontierOptions& options,
                                       const std::map<std::string, double>& scatter) {
  return fitWithScatter(table, options, scatter);
}

}  // namespace deepladder::fitting
