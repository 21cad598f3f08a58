// Keys of cached fits (see fit_cache_key.h).
#include "fitting/fit_cache_key.h"

#include <algorithm>
#include <tuple>

#include "core/sha256.h"
#include "fitting/table_format.h"

namespace deepladder::fitting {
namespace {

std::string exact(double v) {
  return formatNumber(v, 17, nullptr);
}

// The fields frontierOptionsKey knows, in FrontierOptions' order.
struct KnownFrontierOptions {
  std::string baseline;
  double c_ref;
  int bootstrap;
  std::uint64_t seed;
  bool joint;
  std::vector<double> at;
  double ci_level;
  int threads;
  FrontierEstimator estimator;
  bool residual_bootstrap;
  const Cancellation* cancellation;  // not in the key: a cancelled fit is never cached
  // Not in the key: the cached shares are fitted without them (ladder_fit.cpp), and the
  // assembled ladder's misfit is recomputed from its points on every fit.
  bool prediction_intervals;
  bool nested_checks;
  MisfitPrior misfit_prior;
  std::string form;
  double pinned_E;
  std::string pinned_E_source;
};

}  // namespace

std::string frontierOptionsKey(const FrontierOptions& o) {
  static_assert(sizeof(FrontierOptions) == sizeof(KnownFrontierOptions),
                "FrontierOptions has a new field: add it to KnownFrontierOptions and, when it "
                "changes a fit's numbers, to the key below");
  std::string key = "baseline=" + o.baseline + ";c_ref=" + exact(o.c_ref) +
                    ";bootstrap=" + std::to_string(o.bootstrap) +
                    ";seed=" + std::to_string(o.seed) + ";joint=" + (o.joint ? "1" : "0") +
                    ";ci=" + exact(o.ci_level) +
                    ";residuals=" + (o.residual_bootstrap ? "1" : "0") +
                    ";estimator=" + estimatorName(o.estimator) +
                    (o.form == "frontier" ? std::string()
                                          : ";form=" + o.form + ";pinned_E=" + exact(o.pinned_E) +
                                                ";pinned_E_source=" + o.pinned_E_source) +
                    ";at=";
  for (double c : o.at) key += exact(c) + ",";
  return key;
}

std::string pointsKey(const std::vector<RunPoint>& points) {
  std::vector<std::tuple<std::string, double, double>> rows;
  rows.reserve(points.size());
  for (const auto& p : points) rows.emplace_back(p.arm, p.compute_flops, p.val_loss);
  std::sort(rows.begin(), rows.end());
  std::string key;
  for (const auto& [arm, c, l] : rows) key += arm + "," + exact(c) + "," + exact(l) + ";";
  return key;
}

std::string fitCacheKey(const std::string& form, const std::vector<std::string>& parts) {
  Sha256 h;
  const std::string head = form + "|v" + std::to_string(kFitCodeVersion);
  h.update(head.data(), head.size());
  for (const auto& p : parts) {
    const std::string sep = "|" + std::to_string(p.size()) + ":";
    h.update(sep.data(), sep.size());
    h.update(p.data(), p.size());
  }
  return h.hexDigest();
}

}  // namespace deepladder::fitting
