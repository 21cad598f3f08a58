// A ladder's frontier fit from cached per-arm shares (see ladder_fit.h).
#include "fitting/ladder_fit.h"

#include <algorithm>
#include <stdexcept>

#include "core/errors.h"
#include "fitting/cancellation.h"
#include "fitting/fit_cache_key.h"
#include "fitting/fit_diagnostics.h"
#include "fitting/frontier_fit.h"
#include "fitting/frontier_result_json.h"
#include "fitting/prediction_interval.h"
#include "fitting/sweep_envelope.h"

namespace deepladder::fitting {

FrontierResult assembleLadderFit(const std::vector<FrontierResult>& shares) {
  if (shares.empty()) throw std::invalid_argument("assembleLadderFit: no shares");
  FrontierResult out = shares.front();
  if (shares.size() == 1) return out;
  out.arms.resize(1);
  out.multipliers.clear();
  size_t replicates = shares.front().bootstrap_draws.size();
  for (const auto& s : shares) {
    replicates = std::min(replicates, s.bootstrap_draws.size());
    out.bootstrap_used = std::min(out.bootstrap_used, s.bootstrap_used);
  }
  out.bootstrap_draws.assign(replicates, {});
  for (size_t r = 0; r < replicates; ++r)
    out.bootstrap_draws[r].push_back(shares.front().bootstrap_draws[r].at(0));
  for (const auto& s : shares) {
    for (size_t a = 1; a < s.arms.size(); ++a) {
      out.arms.push_back(s.arms[a]);
      out.multipliers.push_back(s.multipliers.at(a - 1));
      for (size_t r = 0; r < replicates; ++r)
        out.bootstrap_draws[r].push_back(s.bootstrap_draws[r].at(a));
    }
  }
  return out;
}

std::map<std::string, std::vector<RunPoint>> pointsByArm(const std::vector<RunPoint>& points) {
  std::map<std::string, std::vector<RunPoint>> by_arm;
  for (const auto& p : points) by_arm[p.arm].push_back(p);
  for (auto& [arm, pts] : by_arm)
    std::sort(pts.begin(), pts.end(), [](const RunPoint& a, const RunPoint& b) {
      return a.compute_flops != b.compute_flops ? a.compute_flops < b.compute_flops
                                                : a.val_loss < b.val_loss;
    });
  return by_arm;
}

LadderFitter::LadderFitter(FitCacheStore* cache, std::string source)
    : cache_(cache), source_(std::move(source)) {}

std::optional<FrontierResult> LadderFitter::lookup(const std::string& name,
                                                   const std::string& key) {
  auto it = shares_.find(name);
  if (it != shares_.end() && it->second.key == key) return it->second.fit;
  if (!cache_) return std::nullopt;
  std::optional<std::string> text = cache_->load(key);
  if (!text) return std::nullopt;
  try {
    FrontierResult fit = frontierResultFromJson(nlohmann::json::parse(*text));
    ++cache_hits_;
    shares_[name] = {key, fit};
    return fit;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable entry (older format): fit again and overwrite it
  }
}

void LadderFitter::store(const std::string& name, const std::string& key, const FrontierResult& fit,
                         const std::vector<std::string>& arms) {
  if (fit.cancelled) throw FitCancelled();  // an incomplete fit is neither kept nor cached
  refitted_.push_back(name);
  shares_[name] = {key, fit};
  if (!cache_) return;
  CachedFitEntry entry;
  entry.key = key;
  entry.source = source_;
  entry.arm = name;
  entry.arms = arms;
  entry.form = "frontier";
  nlohmann::json params = nlohmann::json::object();
  for (const auto& f : fit.arms) params[f.arm] = {{"E", f.E}, {"A", f.A}, {"gamma", f.gamma}};
  entry.params_json = params.dump();
  entry.result_json = frontierResultToJson(fit).dump();
  cache_->save(entry);
}

namespace {

// A share's fit: the law and its fit intervals on an enveloped table, without the steps that
// describe the whole ladder (prediction intervals, diagnostics), which fit() adds to the assembled
// fit once.
FrontierResult fitShare(const ResultsTable& enveloped, const FrontierOptions& options) {
  return fitFrontierKnownScatter(enveloped, options, {});
}

}  // namespace

std::vector<FrontierResult> splitIntoShares(FrontierResult whole) {
  // The per-arm parts are moved out first, so that each share copies only the fit's scalars and
  // its own two arms. (A copy of the whole fit per share, trimmed afterwards, kept every
  // replicate's room for every arm in each share: arms^2 x replicates draws, 24 GB at 3,331
  // imported arms.)
  const std::vector<ArmFit> arms = std::move(whole.arms);
  const std::vector<ArmMultipliers> multipliers = std::move(whole.multipliers);
  const std::vector<std::vector<FrontierDraw>> draws = std::move(whole.bootstrap_draws);
  whole.arms.clear();
  whole.multipliers.clear();
  whole.bootstrap_draws.clear();
  // What describes the whole ladder (its diagnostics, envelope, misfit and projections) is no
  // share's: fit() computes it again for the assembled fit. Copied into every share it made the
  // split quadratic in arms again (3,331 arms: every share a copy of 3,331 arms' diagnostics).
  whole.diagnostics = {};
  whole.sweep.clear();
  whole.misfit = {};
  whole.loss_projections.clear();
  std::vector<FrontierResult> shares;
  shares.reserve(arms.size() > 0 ? arms.size() - 1 : 0);
  for (size_t a = 1; a < arms.size(); ++a) {
    FrontierResult share = whole;
    share.arms = {arms[0], arms[a]};
    share.multipliers = {multipliers.at(a - 1)};
    share.bootstrap_draws.reserve(draws.size());
    for (const auto& replicate : draws)
      share.bootstrap_draws.push_back({replicate.at(0), replicate.at(a)});
    shares.push_back(std::move(share));
  }
  return shares;
}

FrontierResult shareOf(const FrontierResult& whole, size_t arm_index) {
  return splitIntoShares(whole).at(arm_index - 1);
}

FrontierResult LadderFitter::fit(const ResultsTable& swept, const FrontierOptions& options,
                                 bool lenient) {
  // A sweep's envelope is a step of the inputs: every share sees the best point of each rung.
  const SweepEnvelope envelope = sweepEnvelope(swept);
  FrontierResult fit = fitEnvelope(envelope.table, options, lenient);
  fit.sweep = envelope.rungs;
  addPredictionIntervals(fit, envelope.table, options);
  fit.diagnostics = diagnoseFrontierFit(fit, envelope.table, options);
  return fit;
}

FrontierResult LadderFitter::fitEnvelope(const ResultsTable& table,
                                         const FrontierOptions& ladder_options, bool lenient) {
  // The shares carry fit intervals only: the misfit is a property of the whole ladder, added to
  // the assembled fit by fit().
  FrontierOptions options = ladder_options;
  options.prediction_intervals = false;
  refitted_.clear();
  skipped_.clear();
  cache_hits_ = 0;
  if (!lenient) validateFrontierInput(table, options);
  const std::string options_key = frontierOptionsKey(options);

  const std::map<std::string, std::vector<RunPoint>> by_arm = pointsByArm(table.points);
  if (!by_arm.count(options.baseline))
    throw UserError(table.source + ": no runs of the baseline arm \"" + options.baseline +
                    "\" yet" + (lenient ? "" : ". Pass --baseline with one of the arms"));
  const std::vector<RunPoint>& base = by_arm.at(options.baseline);

  // One E for all arms, or a form other than the power law (whose arms need not share E the
  // paper's way): the ladder is one share.
  if (options.joint || options.form != "frontier") {
    std::vector<std::string> arms;
    for (const auto& [arm, pts] : by_arm) arms.push_back(arm);
    ResultsTable sorted;
    sorted.source = table.source;
    for (const auto& [arm, pts] : by_arm)
      sorted.points.insert(sorted.points.end(), pts.begin(), pts.end());
    const std::string key =
        fitCacheKey(options.joint ? "frontier-joint" : "frontier-" + options.form,
                    {options_key, pointsKey(table.points)});
    if (auto found = lookup("*", key)) return *found;
    FrontierResult fit = fitShare(sorted, options);
    store("*", key, fit, arms);
    return fit;
  }

  // Each share: reused (memory, then the cache) when its key is known; else checked now and
  // fitted below.
  struct Missing {
    std::string arm, key;
    const std::vector<RunPoint>* points;  // null: the baseline alone
  };
  std::map<std::string, FrontierResult> found;
  std::vector<Missing> missing;
  auto consider = [&](const std::string& arm, const std::vector<RunPoint>* other) {
    const std::string key =
        fitCacheKey("frontier-share",
                    {options_key, pointsKey(base), other ? pointsKey(*other) : std::string()});
    if (auto hit = lookup(arm, key)) {
      found[arm] = std::move(*hit);
      return;
    }
    ResultsTable pair{table.source, base, {}};
    if (other) pair.points.insert(pair.points.end(), other->begin(), other->end());
    try {
      validateFrontierInput(pair, options);
      missing.push_back({arm, key, other});
    } catch (const UserError& e) {
      if (!lenient) throw;
      skipped_.push_back({arm, e.what()});
    }
  };
  for (const auto& [arm, pts] : by_arm)
    if (arm != options.baseline) consider(arm, &pts);
  if (by_arm.size() == 1) consider(options.baseline, nullptr);
  if (found.empty() && missing.empty()) {
    // Every arm failed: when the baseline alone cannot be fitted, that is the reason.
    if (lenient && by_arm.size() > 1) {
      validateFrontierInput(ResultsTable{table.source, base, {}}, options);
      consider(options.baseline, nullptr);
    }
    if (found.empty() && missing.empty())
      throw UserError(skipped_.empty() ? table.source + ": nothing to fit" : skipped_[0].reason);
  }

  // The missing shares in one fit of the baseline with all their arms, split per arm: the same
  // numbers as fitting each share alone (each arm resamples from its own stream), and the
  // baseline's bootstrap is solved once instead of once per share (a baseline run, a cold start).
  if (missing.size() == 1 || (missing.size() > 1 && !missing[0].points)) {
    const Missing& m = missing[0];
    ResultsTable pair{table.source, base, {}};
    if (m.points) pair.points.insert(pair.points.end(), m.points->begin(), m.points->end());
    FrontierResult fit = fitShare(pair, options);
    store(m.arm, m.key, fit,
          m.points ? std::vector<std::string>{options.baseline, m.arm}
                   : std::vector<std::string>{options.baseline});
    found[m.arm] = std::move(fit);
  } else if (!missing.empty()) {
    ResultsTable together{table.source, base, {}};
    for (const Missing& m : missing)
      together.points.insert(together.points.end(), m.points->begin(), m.points->end());
    std::map<std::string, const Missing*> missing_by_arm;
    for (const Missing& m : missing) missing_by_arm[m.arm] = &m;
    for (FrontierResult& share : splitIntoShares(fitShare(together, options))) {
      const auto m = missing_by_arm.find(share.arms.at(1).arm);
      if (m == missing_by_arm.end()) continue;
      store(m->second->arm, m->second->key, share, {options.baseline, m->second->arm});
      found[m->second->arm] = std::move(share);
    }
  }
  std::vector<FrontierResult> shares;
  for (auto& [arm, fit] : found) shares.push_back(std::move(fit));
  return assembleLadderFit(shares);
}

}  // namespace deepladder::fitting
