// A ladder's frontier fit from cached per-arm shares (see ladder_fit.h).
#include "fitting/ladder_fit.h"

#include <algorithm>
#include <stdexcept>

#include "core/errors.h"
#include "fitting/fit_cache_key.h"
#include "fitting/frontier_fit.h"
#include "fitting/frontier_result_json.h"

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

LadderFitter::LadderFitter(FitCacheStore* cache, std::string source)
    : cache_(cache), source_(std::move(source)) {}

const FrontierResult& LadderFitter::share(const std::string& name, const std::string& key,
                                          const ResultsTable& points,
                                          const FrontierOptions& options,
                                          const std::vector<std::string>& arms) {
  auto it = shares_.find(name);
  if (it != shares_.end() && it->second.key == key) return it->second.fit;
  Share fresh;
  fresh.key = key;
  bool found = false;
  if (cache_) {
    if (std::optional<std::string> text = cache_->load(key)) {
      try {
        fresh.fit = frontierResultFromJson(nlohmann::json::parse(*text));
        found = true;
        ++cache_hits_;
      } catch (const std::exception&) {
        found = false;  // unreadable entry (older format): fit again and overwrite it
      }
    }
  }
  if (!found) {
    fresh.fit = fitFrontier(points, options);
    refitted_.push_back(name);
    if (cache_) {
      CachedFitEntry entry;
      entry.key = key;
      entry.source = source_;
      entry.arm = name;
      entry.arms = arms;
      entry.form = "frontier";
      nlohmann::json params = nlohmann::json::object();
      for (const auto& f : fresh.fit.arms)
        params[f.arm] = {{"E", f.E}, {"A", f.A}, {"gamma", f.gamma}};
      entry.params_json = params.dump();
      entry.result_json = frontierResultToJson(fresh.fit).dump();
      cache_->save(entry);
    }
  }
  return (shares_[name] = std::move(fresh)).fit;
}

FrontierResult LadderFitter::fit(const ResultsTable& table, const FrontierOptions& options,
                                 bool lenient) {
  refitted_.clear();
  skipped_.clear();
  cache_hits_ = 0;
  if (!lenient) validateFrontierInput(table, options);
  const std::string options_key = frontierOptionsKey(options);

  // Each arm's points in one order (compute, loss), so equal points give equal fits, whatever
  // order the source listed them in: the bootstrap picks points by position.
  std::map<std::string, std::vector<RunPoint>> by_arm;
  for (const auto& p : table.points) by_arm[p.arm].push_back(p);
  for (auto& [arm, pts] : by_arm)
    std::sort(pts.begin(), pts.end(), [](const RunPoint& a, const RunPoint& b) {
      return a.compute_flops != b.compute_flops ? a.compute_flops < b.compute_flops
                                                : a.val_loss < b.val_loss;
    });
  if (!by_arm.count(options.baseline))
    throw UserError(table.source + ": no runs of the baseline arm \"" + options.baseline +
                    "\" yet" + (lenient ? "" : ". Pass --baseline with one of the arms"));
  const std::vector<RunPoint>& base = by_arm.at(options.baseline);

  if (options.joint) {
    std::vector<std::string> arms;
    for (const auto& [arm, pts] : by_arm) arms.push_back(arm);
    ResultsTable sorted;
    sorted.source = table.source;
    for (const auto& [arm, pts] : by_arm)
      sorted.points.insert(sorted.points.end(), pts.begin(), pts.end());
    const std::string key = fitCacheKey("frontier-joint", {options_key, pointsKey(table.points)});
    return share("*", key, sorted, options, arms);
  }

  std::vector<FrontierResult> shares;
  auto add = [&](const std::string& arm, const std::vector<RunPoint>* other) {
    ResultsTable sub;
    sub.source = table.source;
    sub.points = base;
    if (other) sub.points.insert(sub.points.end(), other->begin(), other->end());
    const std::string key =
        fitCacheKey("frontier-share",
                    {options_key, pointsKey(base), other ? pointsKey(*other) : std::string()});
    std::vector<std::string> arms{options.baseline};
    if (other) arms.push_back(arm);
    try {
      shares.push_back(share(arm, key, sub, options, arms));
    } catch (const UserError& e) {
      if (!lenient) throw;
      skipped_.push_back({arm, e.what()});
    }
  };
  for (const auto& [arm, pts] : by_arm)
    if (arm != options.baseline) add(arm, &pts);
  if (by_arm.size() == 1) add(options.baseline, nullptr);
  if (shares.empty()) {
    // Every share failed: when the baseline alone cannot be fitted, that is the reason.
    if (lenient && by_arm.size() > 1) {
      ResultsTable alone{table.source, base};
      validateFrontierInput(alone, options);
      add(options.baseline, nullptr);
    }
    if (shares.empty())
      throw UserError(skipped_.empty() ? table.source + ": nothing to fit" : skipped_[0].reason);
  }
  return assembleLadderFit(shares);
}

}  // namespace deepladder::fitting
