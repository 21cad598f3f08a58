// The peers' curve ratios (see curve_transfer.h).
#include "fitting/curve_transfer.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

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

// Each point's offset of ln peak rate from the line the points follow in ln T (least squares,
// unweighted; with fewer than three points or one size, from their mean): a swept rung's x0.5
// and x2 points sit about -ln 2 and +ln 2 off it, its centre near 0, whatever the rates' depth
// scaling.
std::vector<double> rateOffsets(const std::vector<Eigen::Vector3d>& xs) {
  Eigen::MatrixXd design(static_cast<Eigen::Index>(xs.size()), 2);
  Eigen::VectorXd rate(design.rows());
  for (Eigen::Index i = 0; i < design.rows(); ++i) {
    design(i, 0) = 1.0;
    design(i, 1) = xs[size_t(i)](1);
    rate(i) = xs[size_t(i)](2);
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(design);
  const Eigen::VectorXd residual = design.rows() >= 3 && qr.rank() == 2
                                       ? Eigen::VectorXd(rate - design * qr.solve(rate))
                                       : Eigen::VectorXd(rate.array() - rate.mean());
  return std::vector<double>(residual.data(), residual.data() + residual.size());
}

// The same for the peers and the target together; the last entry is the target's.
std::vector<double> rateOffsets(std::vector<Eigen::Vector3d> xs, const Eigen::Vector3d& x_target) {
  xs.push_back(x_target);
  return rateOffsets(xs);
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

// Whether `target_rate` lies within a factor kRateReach of the peak rates of the peers `xs`:
// peers trained at other rates do not say how a run at this one gains.
bool withinRateReach(double target_rate, const std::vector<Eigen::Vector3d>& xs) {
  double lowest_rate = HUGE_VAL, highest_rate = 0;
  for (const Eigen::Vector3d& x : xs) {
    lowest_rate = std::min(lowest_rate, std::exp(x(2)));
    highest_rate = std::max(highest_rate, std::exp(x(2)));
  }
  return target_rate >= lowest_rate / kRateReach && target_rate <= highest_rate * kRateReach;
}

// The weighted least-squares coefficients of `ys` on k columns, column(i, c) being peer i's
// value in column c; nullopt when the columns are not independent over the weighted peers.
template <class Column>
std::optional<Eigen::VectorXd> weightedLeastSquares(const std::vector<double>& ys,
                                                    const std::vector<double>& weights, int k,
                                                    const Column& column) {
  Eigen::MatrixXd design(static_cast<Eigen::Index>(ys.size()), k);
  Eigen::VectorXd y(static_cast<Eigen::Index>(ys.size()));
  for (size_t i = 0; i < ys.size(); ++i) {
    const double root_weight = std::sqrt(weights[i]);
    for (int c = 0; c < k; ++c) design(Eigen::Index(i), c) = root_weight * column(i, c);
    y(Eigen::Index(i)) = root_weight * ys[i];
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(design);
  if (qr.rank() < k) return std::nullopt;
  return Eigen::VectorXd(qr.solve(y));
}

// No gain beyond what the peers showed (`gains`), give or take half their spread: a trend fitted
// on a few peers must not extrapolate a run to a loss none of them came near.
double clampToPeersGains(double gain, const std::vector<double>& gains) {
  const auto [lowest, highest] = std::minmax_element(gains.begin(), gains.end());
  const double margin = 0.5 * (*highest - *lowest);
  return std::clamp(gain, *lowest - margin, *highest + margin);
}

// kPooledAcrossArms: the width in ln T of the peers' weights, their width in rate offset, and
// the weight of another arm's run beside one of the target's own. Chosen on four finished ladders
// (the quick ladder's two full runs, the 1-hour ladder with two seeds and with one; Python
// prototype, mean |error| at half a run): widths 0.4-0.6 and 0.3-0.4 and weights 0.2-0.5 all
// erred 0.49-0.57% on average over the four, these 0.50%.
constexpr double kPooledWidth = 0.5;
constexpr double kPooledRateWidth = 0.35;
constexpr double kOtherArmWeight = 0.3;

// The pooled prediction (TransferShape::kPooledAcrossArms) from the peers' covariates `xs`, gains
// `ys` and runs `sources` (any arm), the target's level at its fraction being `level`.
std::optional<double> pooledPrediction(const RunCurve& target, double level,
                                       const std::vector<Eigen::Vector3d>& xs,
                                       const std::vector<double>& ys,
                                       const std::vector<const RunCurve*>& sources,
                                       double* leverage) {
  const size_t n = ys.size();
  const Eigen::Vector3d x_target = covariates(target);
  // The target's own arm: at least two peers, and its rate within their reach.
  std::vector<double> own_gains;
  std::vector<Eigen::Vector3d> own_xs;
  for (size_t i = 0; i < n; ++i) {
    if (sources[i]->group != target.group) continue;
    own_gains.push_back(ys[i]);
    own_xs.push_back(xs[i]);
  }
  if (own_gains.size() < 2 || !withinRateReach(peakRate(target), own_xs)) return std::nullopt;
  // Each arm's rate offsets from its own rate-size line (the arms' rates differ in level and
  // depth scaling); the target's from its arm's line with it.
  std::vector<std::string> other_arms;
  std::vector<double> offsets(n + 1, 0.0);
  std::map<std::string, std::vector<size_t>> by_arm;
  for (size_t i = 0; i < n; ++i) by_arm[sources[i]->group].push_back(i);
  for (const auto& [arm, members] : by_arm) {
    std::vector<Eigen::Vector3d> arm_xs;
    for (size_t i : members) arm_xs.push_back(xs[i]);
    const bool own = arm == target.group;
    if (own)
      arm_xs.push_back(x_target);
    else
      other_arms.push_back(arm);
    const std::vector<double> arm_offsets = rateOffsets(arm_xs);
    for (size_t j = 0; j < members.size(); ++j) offsets[members[j]] = arm_offsets[j];
    if (own) offsets[n] = arm_offsets.back();
  }
  double largest_offset_squared = 0;
  for (size_t i = 0; i < n; ++i)
    largest_offset_squared = std::max(largest_offset_squared, offsets[i] * offsets[i]);
  std::vector<double> weights(n);
  for (size_t i = 0; i < n; ++i) {
    const double distance = xs[i](1) - x_target(1), rate_distance = offsets[i] - offsets[n];
    weights[i] =
        (sources[i]->group == target.group ? 1.0 : kOtherArmWeight) *
        std::exp(-distance * distance / (2 * kPooledWidth * kPooledWidth) -
                 rate_distance * rate_distance / (2 * kPooledRateWidth * kPooledRateWidth));
  }
  // The target's leverage over (1, ln T, rate offset) among the weighted peers.
  std::vector<Eigen::Vector3d> zs;
  for (size_t i = 0; i < n; ++i) zs.emplace_back(1.0, xs[i](1), offsets[i]);
  const double target_leverage =
      fullLeverage(zs, weights, Eigen::Vector3d(1.0, x_target(1), offsets[n]));
  if (!(target_leverage <= kMaxLeverage)) return std::nullopt;
  // Columns, centred on the target (its prediction is the intercept): 0 = 1, 1 = ln T, 2 = rate
  // offset, 3 = squared rate offset (where the rates spread: a sweep), 4 = (ln T)^2 (from
  // kMinPeersForBend of the arm's own peers on), then one indicator per other arm, always kept:
  // how much an arm gains differs from arm to arm; how it varies with size and rate is shared.
  const bool rate_spread = largest_offset_squared >= kMinRateOffsetSquared;
  const bool bent = static_cast<int>(own_gains.size()) >= kMinPeersForBend;
  auto column = [&](size_t i, int c) -> double {
    const double lt = xs[i](1) - x_target(1);
    switch (c) {
      case 0:
        return 1.0;
      case 1:
        return lt;
      case 2:
        return offsets[i] - offsets[n];
      case 3:
        return offsets[i] * offsets[i] - offsets[n] * offsets[n];
      case 4:
        return lt * lt;
      default:
        return sources[i]->group == other_arms[size_t(c - 5)] ? 1.0 : 0.0;
    }
  };
  for (std::vector<int> columns : std::vector<std::vector<int>>{
           {0, 1, 2, 3, 4}, {0, 1, 2, 3}, {0, 1, 2, 4}, {0, 1, 2}, {0, 1}, {0, 2}, {0}}) {
    const bool has_offsets = std::count(columns.begin(), columns.end(), 3) > 0;
    const bool has_bend = std::count(columns.begin(), columns.end(), 4) > 0;
    if ((has_offsets && !rate_spread) || (has_bend && !bent)) continue;
    for (size_t a = 0; a < other_arms.size(); ++a) columns.push_back(5 + int(a));
    const int k = static_cast<int>(columns.size());
    if (static_cast<int>(n) < k + 2 && k > 1) continue;
    const std::optional<Eigen::VectorXd> beta = weightedLeastSquares(
        ys, weights, k, [&](size_t i, int c) { return column(i, columns[size_t(c)]); });
    if (!beta) continue;
    // The target's row is (1, 0, 0, ..., 0): its gain is the intercept, clamped to its own arm's
    // peers' gains.
    const double out = level * std::exp(clampToPeersGains((*beta)(0), own_gains));
    if (!std::isfinite(out)) continue;
    if (leverage) *leverage = target_leverage;
    return out;
  }
  return std::nullopt;
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
  std::vector<const RunCurve*> sources;  // the peer behind each of xs and ys
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
      sources.push_back(p);
    }
    if (static_cast<int>(ys.size()) >= kMinValidationPeers) level = latest_validation->loss;
  }
  // Otherwise the train level: the mean train loss just before the cut.
  if (!level) {
    xs.clear();
    ys.clear();
    sources.clear();
    level = curveLevel(target, fraction);
    if (!level || !(*level > 0)) return std::nullopt;
    for (const RunCurve* p : usable) {
      const std::optional<double> peer_level = curveLevel(*p, fraction);
      if (!peer_level || !(*peer_level > 0)) continue;
      xs.push_back(covariates(*p));
      ys.push_back(std::log(*p->final_loss / *peer_level));
      sources.push_back(p);
    }
  }
  if (shape == TransferShape::kPooledAcrossArms)
    return pooledPrediction(target, *level, xs, ys, sources, leverage);
  if (ys.size() < 2) return std::nullopt;
  // Peers trained at other rates do not say how a run at this one gains: beyond a factor
  // kRateReach of theirs (a point of a wide sweep judged from its rung's centre point), no
  // prediction (the law, which reads the schedule itself, predicts it).
  if (!withinRateReach(peakRate(target), xs)) return std::nullopt;
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
    const std::optional<Eigen::VectorXd> beta = weightedLeastSquares(
        ys, weights, k,
        [&](size_t i, int c) { return designColumn(xs[i], offsets[i], columns[size_t(c)]); });
    if (!beta) continue;
    double predicted_log_gain = 0;
    for (int c = 0; c < k; ++c)
      predicted_log_gain += (*beta)(c)*designColumn(x_target, offsets.back(), columns[size_t(c)]);
    const double out = *level * std::exp(clampToPeersGains(predicted_log_gain, ys));
    if (!std::isfinite(out)) continue;
    if (leverage) *leverage = target_leverage;
    return out;
  }
  return std::nullopt;
}

}  // namespace deepladder::fitting
