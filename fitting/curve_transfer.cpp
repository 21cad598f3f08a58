// The peers' curve ratios (see curve_transfer.h).
#include "fitting/curve_transfer.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace deepladder::fitting {
namespace {

double peakRate(const RunCurve& run) {
  return run.rates.empty() ? 0.0 : *std::max_element(run.rates.begin(), run.rates.end());
}

// The run's covariates: 1, ln T, ln peak rate.
Eigen::Vector3d covariates(const RunCurve& run) {
  return {1.0, std::log(double(std::max<size_t>(1, run.rates.size()))),
          std::log(std::max(peakRate(run), 1e-300))};
}

}  // namespace

std::optional<double> curveLevel(const RunCurve& run, double fraction, double window) {
  const double total = double(run.rates.size());
  const double end = fraction * total, start = (fraction - window) * total;
  double sum = 0, weight = 0;
  std::vector<const CurveObservation*> before;
  for (const CurveObservation& o : run.points) {
    if (o.validation || !std::isfinite(o.loss) || double(o.updates) > end) continue;
    before.push_back(&o);
    if (double(o.updates) > start) {
      sum += o.loss * o.weight;
      weight += o.weight;
    }
  }
  if (before.size() >= 3 && weight > 0 &&
      std::count_if(before.begin(), before.end(),
                    [&](const CurveObservation* o) { return double(o->updates) > start; }) >= 3)
    return sum / weight;
  if (before.empty()) return std::nullopt;
  sum = weight = 0;
  for (size_t i = before.size() - std::min<size_t>(3, before.size()); i < before.size(); ++i) {
    sum += before[i]->loss * before[i]->weight;
    weight += before[i]->weight;
  }
  return weight > 0 ? std::optional<double>(sum / weight) : std::nullopt;
}

std::optional<double> transferPrediction(const RunCurve& target,
                                         const std::vector<const RunCurve*>& peers) {
  if (target.rates.empty()) return std::nullopt;
  int64_t last = 0;
  for (const CurveObservation& o : target.points) last = std::max(last, o.updates);
  const double fraction = std::min(1.0, double(last) / double(target.rates.size()));
  const std::optional<double> level = curveLevel(target, fraction);
  if (!level || !(*level > 0)) return std::nullopt;
  std::vector<Eigen::Vector3d> xs;
  std::vector<double> ys;
  for (const RunCurve* p : peers) {
    if (!p->final_loss || !(*p->final_loss > 0) || p->rates.empty()) continue;
    const std::optional<double> peer_level = curveLevel(*p, fraction);
    if (!peer_level || !(*peer_level > 0)) continue;
    xs.push_back(covariates(*p));
    ys.push_back(std::log(*p->final_loss / *peer_level));
  }
  if (ys.size() < 2) return std::nullopt;
  // Keep the covariates the peers vary, as many as the peers can determine with a residual to
  // spare; drop ln peak rate first, then ln T.
  const Eigen::Vector3d x_target = covariates(target);
  for (const std::vector<int>& columns :
       std::vector<std::vector<int>>{{0, 1, 2}, {0, 1}, {0, 2}, {0}}) {
    const int k = static_cast<int>(columns.size());
    if (static_cast<int>(ys.size()) < k + 2 && k > 1) continue;
    Eigen::MatrixXd design(static_cast<Eigen::Index>(ys.size()), k);
    Eigen::VectorXd y(static_cast<Eigen::Index>(ys.size()));
    for (size_t i = 0; i < ys.size(); ++i) {
      for (int c = 0; c < k; ++c) design(Eigen::Index(i), c) = xs[i](columns[size_t(c)]);
      y(Eigen::Index(i)) = ys[i];
    }
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(design);
    if (qr.rank() < k) continue;
    const Eigen::VectorXd beta = qr.solve(y);
    double predicted_log_gain = 0;
    for (int c = 0; c < k; ++c) predicted_log_gain += beta(c) * x_target(columns[size_t(c)]);
    // No gain beyond what the peers showed, give or take half their spread: a trend fitted on a
    // few peers must not extrapolate a run to a loss none of them came near.
    const auto [lowest, highest] = std::minmax_element(ys.begin(), ys.end());
    const double margin = 0.5 * (*highest - *lowest);
    predicted_log_gain = std::clamp(predicted_log_gain, *lowest - margin, *highest + margin);
    const double out = *level * std::exp(predicted_log_gain);
    if (std::isfinite(out)) return out;
  }
  return std::nullopt;
}

}  // namespace deepladder::fitting
