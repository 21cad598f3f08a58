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

// Column `c` of the regression's design for covariates `x` and the run's squared rate offset
// `q` (see kLocalInLogT): 0-2 as they are, 3 = (ln T)^2, 4 = q.
double designColumn(const Eigen::Vector3d& x, double q, int c) {
  return c == 4 ? q : c == 3 ? x(1) * x(1) : x(c);
}

// A validation loss counts as the run's level if it is at most this share of the run old.
constexpr double kFreshValidation = 0.05;
// Peers needed before the gain may bend in ln T ((ln T)^2 joins the regression): four
// coefficients and four residuals to spare.
constexpr int kMinPeersForBend = 8;
// Peers with a validation loss at the same fraction needed to predict from validation levels.
constexpr int kMinValidationPeers = 2;
// How far beyond the peers' peak rates a run may be predicted from their gains.
constexpr double kRateReach = 2.5;
// The largest leverage a run may have among its peers and still be predicted from their gains:
// its interval is then (1 + 24)^(1/4) = 2.2 times as wide as one for a run at their centre
// (curve_prediction.cpp's leverage scale).
constexpr double kMaxLeverage = 24.0;
// kLocalInLogT: the width in ln T of the peers' Gaussian weights (the quick ladder's rungs lie
// 0.4-0.7 apart in ln T: a rung's neighbours count about half as much as its own sweep points,
// the rungs beyond them a few per cent); their width in rate offset (below: a sweep's points a
// factor 2 apart sit ln 2 = 0.69 apart, so a point's neighbours at the next rate count 0.38 as
// much as the peers at its own, those at twice that distance 2%); and the largest squared rate
// offset among the peers below which they are taken to share one rate per size (no sweep: q is
// left out).
constexpr double kLocalWidth = 0.35;
constexpr double kLocalRateWidth = 0.5;
constexpr double kMinRateOffsetSquared = 0.01;

// Each run's offset of ln peak rate from the line the peers' and the target's rates follow in
// ln T (least squares, unweighted): a swept rung's x0.5 and x2 points sit about -ln 2 and +ln 2
// off it, its centre near 0, whatever the rates' depth scaling. The last entry is the target's.
std::vector<double> rateOffsets(const std::vector<Eigen::Vector3d>& xs,
                                const Eigen::Vector3d& x_target) {
  Eigen::MatrixXd design(static_cast<Eigen::Index>(xs.size() + 1), 2);
  Eigen::VectorXd rate(design.rows());
  for (Eigen::Index i = 0; i < design.rows(); ++i) {
    const Eigen::Vector3d& x = size_t(i) < xs.size() ? xs[size_t(i)] : x_target;
    design(i, 0) = 1.0;
    design(i, 1) = x(1);
    rate(i) = x(2);
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(design);
  const Eigen::VectorXd residual = qr.rank() == 2 ? Eigen::VectorXd(rate - design * qr.solve(rate))
                                                  : Eigen::VectorXd(rate.array() - rate.mean());
  std::vector<double> out(size_t(design.rows()));
  for (Eigen::Index i = 0; i < design.rows(); ++i) out[size_t(i)] = residual(i);
  return out;
}

// The target's leverage over 1, ln T and ln peak rate, whichever the regression kept: x' (X'X)^-1
// x, X'X given a ridge of 1e-10 of its mean diagonal, so that a target off a line the peers lie on
// exactly (ln peak rate a function of ln T: the regression then drops the rate) comes out huge
// rather than unseen.
// With the peers' regression weights W (all 1 but for the local shape): x' (X'WX)^-1 x.
double fullLeverage(const std::vector<Eigen::Vector3d>& xs, const std::vector<double>& weights,
                    const Eigen::Vector3d& x_target) {
  Eigen::Matrix3d gram = Eigen::Matrix3d::Zero();
  for (size_t i = 0; i < xs.size(); ++i) gram += weights[i] * xs[i] * xs[i].transpose();
  gram.diagonal().array() += 1e-10 * gram.trace() / 3.0 + 1e-300;
  const double h = x_target.dot(gram.ldlt().solve(x_target));
  return std::isfinite(h) ? std::max(h, 0.0) : HUGE_VAL;
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
                                         const std::vector<const RunCurve*>& peers,
                                         TransferLevel level_kind, double* leverage,
                                         TransferShape shape) {
  if (leverage) *leverage = 0.0;
  if (target.rates.empty()) return std::nullopt;
  int64_t last = 0;
  for (const CurveObservation& o : target.points) last = std::max(last, o.updates);
  const double total = double(target.rates.size());
  const double fraction = std::min(1.0, double(last) / total);
  std::vector<const RunCurve*> usable;
  for (const RunCurve* p : peers)
    if (p->final_loss && *p->final_loss > 0 && !p->rates.empty()) usable.push_back(p);

  // The validation level: the target's latest validation loss, if it was measured at most
  // kFreshValidation of the run ago, and the peers' at the same fraction of theirs (each run
  // validates after floor(f T) updates, so the two sit within one update of each run apart).
  std::vector<Eigen::Vector3d> xs;
  std::vector<double> ys;
  std::optional<double> level;
  const CurveObservation* latest_validation = nullptr;
  for (const CurveObservation& o : target.points)
    if (o.validation && std::isfinite(o.loss) && o.loss > 0 &&
        (!latest_validation || o.updates > latest_validation->updates))
      latest_validation = &o;
  if (level_kind == TransferLevel::kValidationWhereMeasured && latest_validation &&
      double(latest_validation->updates) < total &&
      fraction - double(latest_validation->updates) / total <= kFreshValidation) {
    const double at = double(latest_validation->updates) / total;
    for (const RunCurve* p : usable) {
      // Within one update of each run: widen the peer's window by the target's update.
      const double slack = double(p->rates.size()) / total;
      const double wanted = at * double(p->rates.size());
      const CurveObservation* nearest = nullptr;
      for (const CurveObservation& o : p->points) {
        if (!o.validation || !std::isfinite(o.loss) || !(o.loss > 0)) continue;
        if (o.updates >= int64_t(p->rates.size())) continue;  // its final loss
        const double distance = std::abs(double(o.updates) - wanted);
        if (distance <= 1.0 + slack + 1e-9 &&
            (!nearest || distance < std::abs(double(nearest->updates) - wanted)))
          nearest = &o;
      }
      if (!nearest) continue;
      xs.push_back(covariates(*p));
      ys.push_back(std::log(*p->final_loss / nearest->loss));
    }
    if (static_cast<int>(ys.size()) >= kMinValidationPeers) level = latest_validation->loss;
  }
  // Otherwise the train level: the mean train loss just before the cut.
  if (!level) {
    xs.clear();
    ys.clear();
    level = curveLevel(target, fraction);
    if (!level || !(*level > 0)) return std::nullopt;
    for (const RunCurve* p : usable) {
      const std::optional<double> peer_level = curveLevel(*p, fraction);
      if (!peer_level || !(*peer_level > 0)) continue;
      xs.push_back(covariates(*p));
      ys.push_back(std::log(*p->final_loss / *peer_level));
    }
  }
  if (ys.size() < 2) return std::nullopt;
  // Peers trained at other rates do not say how a run at this one gains: beyond a factor
  // kRateReach of theirs (a point of a wide sweep judged from its rung's centre point), no
  // prediction (the law, which reads the schedule itself, predicts it).
  double lowest_rate = HUGE_VAL, highest_rate = 0;
  for (const Eigen::Vector3d& x : xs) {
    lowest_rate = std::min(lowest_rate, std::exp(x(2)));
    highest_rate = std::max(highest_rate, std::exp(x(2)));
  }
  const double target_rate = peakRate(target);
  if (!(target_rate >= lowest_rate / kRateReach && target_rate <= highest_rate * kRateReach))
    return std::nullopt;
  // The local shape weighs each peer by its distance from the target in ln T and in rate offset
  // (a sweep point gains like the points at its own rate on the neighbouring rungs: on the quick
  // ladder's two full runs, weighing by ln T alone erred 0.74% and 0.70% at half a run, by both
  // 0.62% and 0.62%) and reads the squared rate offsets (where the peers' rates spread that far).
  const Eigen::Vector3d x_target = covariates(target);
  const bool local = shape == TransferShape::kLocalInLogT;
  std::vector<double> weights(xs.size(), 1.0), offsets(xs.size() + 1, 0.0);
  bool rate_offsets = false;
  if (local) {
    const std::vector<double> signed_offsets = rateOffsets(xs, x_target);
    for (size_t i = 0; i < xs.size(); ++i) {
      const double distance = xs[i](1) - x_target(1);
      const double rate_distance = signed_offsets[i] - signed_offsets.back();
      weights[i] =
          std::exp(-distance * distance / (2 * kLocalWidth * kLocalWidth) -
                   rate_distance * rate_distance / (2 * kLocalRateWidth * kLocalRateWidth));
    }
    for (size_t i = 0; i < offsets.size(); ++i) offsets[i] = signed_offsets[i] * signed_offsets[i];
    rate_offsets = *std::max_element(offsets.begin(), offsets.end() - 1) >= kMinRateOffsetSquared;
  }
  // A run the peers do not span (its leverage beyond kMaxLeverage) gets no prediction either.
  const double target_leverage = fullLeverage(xs, weights, x_target);
  if (!(target_leverage <= kMaxLeverage)) return std::nullopt;
  // Keep the covariates the peers vary, as many as the peers can determine with a residual to
  // spare ((ln T)^2 only when asked for, from kMinPeersForBend peers on; the rate offsets only for
  // the local shape); then drop ln peak rate, then ln T.
  const bool bent =
      shape != TransferShape::kLinearInLogT && static_cast<int>(ys.size()) >= kMinPeersForBend;
  for (const std::vector<int>& columns : std::vector<std::vector<int>>{
           {0, 1, 2, 3, 4}, {0, 1, 2, 4}, {0, 1, 2, 3}, {0, 1, 2}, {0, 1}, {0, 2}, {0}}) {
    const int k = static_cast<int>(columns.size());
    const bool has_bend = std::count(columns.begin(), columns.end(), 3) > 0;
    const bool has_offsets = std::count(columns.begin(), columns.end(), 4) > 0;
    if ((has_bend && !bent) || (has_offsets && !rate_offsets)) continue;
    if (static_cast<int>(ys.size()) < k + 2 && k > 1) continue;
    Eigen::MatrixXd design(static_cast<Eigen::Index>(ys.size()), k);
    Eigen::VectorXd y(static_cast<Eigen::Index>(ys.size()));
    for (size_t i = 0; i < ys.size(); ++i) {
      const double root_weight = std::sqrt(weights[i]);
      for (int c = 0; c < k; ++c)
        design(Eigen::Index(i), c) =
            root_weight * designColumn(xs[i], offsets[i], columns[size_t(c)]);
      y(Eigen::Index(i)) = root_weight * ys[i];
    }
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(design);
    if (qr.rank() < k) continue;
    const Eigen::VectorXd beta = qr.solve(y);
    double predicted_log_gain = 0;
    for (int c = 0; c < k; ++c)
      predicted_log_gain += beta(c) * designColumn(x_target, offsets.back(), columns[size_t(c)]);
    // No gain beyond what the peers showed, give or take half their spread: a trend fitted on a
    // few peers must not extrapolate a run to a loss none of them came near.
    const auto [lowest, highest] = std::minmax_element(ys.begin(), ys.end());
    const double margin = 0.5 * (*highest - *lowest);
    predicted_log_gain = std::clamp(predicted_log_gain, *lowest - margin, *highest + margin);
    const double out = *level * std::exp(predicted_log_gain);
    if (!std::isfinite(out)) continue;
    if (leverage) *leverage = target_leverage;
    return out;
  }
  return std::nullopt;
}

}  // namespace deepladder::fitting
