// Curve predictions with calibrated intervals, and their backtests (see curve_prediction.h).
#include "fitting/curve_prediction.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "fitting/curve_transfer.h"
#include "fitting/student_t.h"

namespace deepladder::fitting {
namespace {

// The law's point prediction of `target` (a run without a final loss) from the finished runs of
// its group and the target's partial curve; the reason when there is none.
CurvePrediction pointPrediction(const RunCurve& target, const std::vector<const RunCurve*>& peers,
                                const CurveLawOptions& options) {
  CurvePrediction out;
  out.run_id = target.run_id;
  out.name = target.name;
  out.fraction = curveFraction(target);
  std::vector<RunCurve> fitted;
  fitted.reserve(peers.size() + 1);
  for (const RunCurve* p : peers) fitted.push_back(*p);
  fitted.push_back(target);
  const CurveLawFit fit = fitCurveLaw(fitted, options);
  const auto group = fit.groups.find(target.group);
  if (group == fit.groups.end() || !fit.runs.count(target.run_id)) {
    out.reason = "too few points measured yet";
    return out;
  }
  const ScheduleAreas areas = scheduleAreas(target.rates, options);
  if (target.crossover >= 0 && !group->second.growth_seen) {
    out.reason = "no run of " + target.group + " has been measured past its growth yet";
    return out;
  }
  if (areas.s2.back() > 0 && !group->second.decay_seen) {
    out.reason = "no run of " + target.group + " has reached its learning-rate decay yet";
    return out;
  }
  out.loss =
      curveLawValidationLoss(fit, target, static_cast<int64_t>(target.rates.size()), options);
  if (out.loss && !std::isfinite(*out.loss)) {
    out.loss.reset();
    out.reason = "the fit did not converge";
  }
  return out;
}

std::vector<const RunCurve*> finishedPeers(const std::vector<RunCurve>& runs,
                                           const std::string& group, int64_t except) {
  std::vector<const RunCurve*> peers;
  for (const RunCurve& r : runs)
    if (r.final_loss && r.group == group && r.run_id != except) peers.push_back(&r);
  return peers;
}

// Every arm's finished runs but `except`: the pooled peers (TransferShape::kPooledAcrossArms).
std::vector<const RunCurve*> finishedRunsOfEveryArm(const std::vector<RunCurve>& runs,
                                                    int64_t except) {
  std::vector<const RunCurve*> peers;
  for (const RunCurve& r : runs)
    if (r.final_loss && r.run_id != except) peers.push_back(&r);
  return peers;
}

// The interval of `p` from relative backtest errors (excluding the run's own), widened by
// `scale` (the peers' predictions: leverageScale of the target's leverage, the errors having been
// divided by each backtest's own).
void setInterval(CurvePrediction& p, const std::vector<double>& errors,
                 const CurveLawOptions& options, double scale = 1.0) {
  if (!p.loss) return;
  const int m = static_cast<int>(errors.size());
  double half;
  if (m >= options.min_backtests && m >= 2) {
    double sum_sq = 0;
    for (double e : errors) sum_sq += e * e;
    p.misfit = std::sqrt(sum_sq / m);
    half = studentTQuantile(0.975, m - 1) * std::sqrt(1.0 + 1.0 / m) * p.misfit;
    p.calibrated = true;
  } else {
    p.misfit = options.prior_misfit;
    half = 1.96 * p.misfit;
  }
  p.misfit *= scale;
  half *= scale;
  p.backtests = m;
  p.lo = *p.loss * (1.0 - half);
  p.hi = *p.loss * (1.0 + half);
}

}  // namespace

// A prediction by the peers' curve ratios and the target's leverage in it (curve_transfer.h).
struct Transfer {
  std::optional<double> loss;
  double leverage = 0;
};

// One peers' predictor's backtests of a group's finished runs, keyed by run id.
struct PeersBacktests {
  std::map<int64_t, Transfer> transfers;  // every run's prediction and leverage
  std::map<int64_t, double> errors;       // the relative errors of those with a prediction
  void add(int64_t run_id, const Transfer& t, double measured) {
    transfers.emplace(run_id, t);
    if (t.loss) errors[run_id] = (*t.loss - measured) / measured;
  }
};

// The group's finished runs cut at `fraction`, each predicted from the others by both
// predictors, and their relative errors, keyed by run id (outside the anonymous namespace: the
// calibration cache of the header keeps them).
struct GroupErrors {
  std::map<int64_t, double> law;
  std::map<int64_t, CurvePrediction> predictions;  // the law's, uncalibrated
  PeersBacktests peers_pooled;                     // the peers' of every arm, local
  PeersBacktests peers;                            // the peers' from validation levels
  PeersBacktests peers_bent;                       // the same, bent in ln T
  PeersBacktests peers_local;                      // the same, local in ln T with rate offsets
  PeersBacktests peers_train;                      // the peers' from train levels
};

// A calibration and the finished runs it came from, of every arm (the pooled peers read them
// all; id and final loss: a finished run's curve does not change).
struct CalibrationEntry {
  std::vector<std::pair<int64_t, double>> finished;            // of the arm
  std::vector<std::pair<int64_t, double>> every_arm_finished;  // of every arm
  std::optional<GroupErrors> errors;                           // nullopt until computed
};

namespace {

Transfer transfer(const RunCurve& target, const std::vector<const RunCurve*>& peers,
                  TransferLevel level, TransferShape shape = TransferShape::kLinearInLogT) {
  Transfer out;
  out.loss = transferPrediction(target, peers, level, &out.leverage, shape);
  return out;
}

// The five peers' predictors of a run.
struct Transfers {
  Transfer pooled, validation, bent, local, train;
};

// The pooled peers' prediction from `every_arm`, every arm's finished runs.
Transfer pooledTransfer(const RunCurve& target, const std::vector<const RunCurve*>& every_arm) {
  return transfer(target, every_arm, TransferLevel::kValidationWhereMeasured,
                  TransferShape::kPooledAcrossArms);
}

// The peers' predictors that read `peers`, the finished runs of the target's arm (`pooled` is
// left empty: pooledTransfer reads every arm's).
Transfers transfers(const RunCurve& target, const std::vector<const RunCurve*>& peers) {
  return {
      Transfer{}, transfer(target, peers, TransferLevel::kValidationWhereMeasured),
      transfer(target, peers, TransferLevel::kValidationWhereMeasured, TransferShape::kBentInLogT),
      transfer(target, peers, TransferLevel::kValidationWhereMeasured, TransferShape::kLocalInLogT),
      transfer(target, peers, TransferLevel::kTrain)};
}

// The peers' predictions of finished run `run_id` that `errors` keeps from its backtests.
Transfers storedTransfers(const GroupErrors& errors, int64_t run_id) {
  return {errors.peers_pooled.transfers.at(run_id), errors.peers.transfers.at(run_id),
          errors.peers_bent.transfers.at(run_id), errors.peers_local.transfers.at(run_id),
          errors.peers_train.transfers.at(run_id)};
}

// The pooled peers' backtests of the group's finished runs: cheap, and redone whenever another
// arm's run finishes.
PeersBacktests pooledErrors(const std::vector<RunCurve>& runs, const std::string& group,
                            double fraction) {
  PeersBacktests out;
  for (const RunCurve& r : runs) {
    if (!r.final_loss || r.group != group) continue;
    out.add(r.run_id,
            pooledTransfer(truncateCurve(r, fraction), finishedRunsOfEveryArm(runs, r.run_id)),
            *r.final_loss);
  }
  return out;
}

GroupErrors groupErrors(const std::vector<RunCurve>& runs, const std::string& group,
                        double fraction, const CurveLawOptions& options) {
  GroupErrors errors;
  errors.peers_pooled = pooledErrors(runs, group, fraction);
  for (const RunCurve& r : runs) {
    if (!r.final_loss || r.group != group) continue;
    const RunCurve cut = truncateCurve(r, fraction);
    const std::vector<const RunCurve*> peers = finishedPeers(runs, group, r.run_id);
    CurvePrediction p = pointPrediction(cut, peers, options);
    if (p.loss) errors.law[r.run_id] = (*p.loss - *r.final_loss) / *r.final_loss;
    const Transfers t = transfers(cut, peers);
    errors.peers.add(r.run_id, t.validation, *r.final_loss);
    errors.peers_bent.add(r.run_id, t.bent, *r.final_loss);
    errors.peers_local.add(r.run_id, t.local, *r.final_loss);
    errors.peers_train.add(r.run_id, t.train, *r.final_loss);
    errors.predictions.emplace(r.run_id, std::move(p));
  }
  return errors;
}

std::vector<double> errorsExcept(const std::map<int64_t, double>& errors, int64_t except) {
  std::vector<double> out;
  for (const auto& [id, e] : errors)
    if (id != except) out.push_back(e);
  return out;
}

double rootMeanSquare(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v * v;
  return values.empty() ? HUGE_VAL : std::sqrt(sum / double(values.size()));
}

// How a peers' prediction's error grows with its leverage h: as (1 + h)^kLeverageExponent.
// Ordinary least squares with exact covariates would give 1/2; but the peers' gains differ from
// the regression's by more than noise (how a run gains is not exactly a function of its size and
// rate), which does not grow with h. On the quick ladder's two full runs (`predict --backtest`
// at five fractions, 450 backtests), an exponent of 1/2 covered the sweep's centre points 88-91%
// and its x2 points 96-100% (their leverage is 1-19 at the ladder's ends, the centres' under
// 1.3); 1/4 covers the centres 91-92%, the x0.5 points 91-92% and the x2 points 96-100%.
constexpr double kLeverageExponent = 0.25;

double leverageScale(double leverage) {
  return std::pow(1.0 + leverage, kLeverageExponent);
}

// The backtests' errors divided by leverageScale(each one's leverage), the run's own left out.
std::vector<double> standardizedErrorsExcept(const PeersBacktests& backtests, int64_t except) {
  std::vector<double> out;
  for (const auto& [id, e] : backtests.errors)
    if (id != except) out.push_back(e / leverageScale(backtests.transfers.at(id).leverage));
  return out;
}

// A peers' predictor later in chooseAndCalibrate's order replaces an earlier one only if its
// backtests' RMS is this much lower. Where two predictors err about equally, a choice by the
// other runs' backtests picks, run after run, whichever did worse on the run left out (its error
// is the one missing from the sum): on the quick ladder's two full runs, choosing between the
// local and the bent peers by the lower RMS alone erred 0.75% and 0.87% at half a run, where
// either one alone erred 0.70-0.89%; with the margin, 0.70% and 0.74%.
constexpr double kSwitchMargin = 0.9;

// The law's prediction `p` or one of the peers' (`transfers`: local in ln T and rate, bent in
// ln T, along a line, all from validation levels where measured, then from train levels),
// whichever erred least on the group's other finished runs at this fraction: a peers' predictor
// replaces the law if its RMS is lower, an earlier peers' predictor if its RMS is kSwitchMargin
// times lower (the law while the peers' backtests are too few). Its interval comes from that
// predictor's errors. The peers' errors are scaled by their leverage (their prediction error
// grows as leverageScale(leverage)), so a run the peers do not span, far from them in ln T and
// ln peak rate, gets a wider interval.
void chooseAndCalibrate(CurvePrediction& p, const Transfers& transfers, const GroupErrors& errors,
                        const CurveLawOptions& options) {
  const std::vector<double> law = errorsExcept(errors.law, p.run_id);
  const bool law_calibrated = static_cast<int>(law.size()) >= options.min_backtests;
  const Transfer* chosen = nullptr;
  const PeersBacktests* chosen_backtests = nullptr;
  double chosen_rms = (p.loss && law_calibrated) ? rootMeanSquare(law) : HUGE_VAL;
  std::string method;
  for (const auto& [candidate, backtests, name] :
       {std::tuple{&transfers.pooled, &errors.peers_pooled, "peers-pooled"},
        std::tuple{&transfers.local, &errors.peers_local, "peers-local"},
        std::tuple{&transfers.bent, &errors.peers_bent, "peers-bent"},
        std::tuple{&transfers.validation, &errors.peers, "peers"},
        std::tuple{&transfers.train, &errors.peers_train, "peers-train"}}) {
    if (!candidate->loss) continue;
    const std::vector<double> e = errorsExcept(backtests->errors, p.run_id);
    if (static_cast<int>(e.size()) < options.min_backtests) continue;
    const double rms = rootMeanSquare(e);
    if (rms < (chosen ? kSwitchMargin : 1.0) * chosen_rms) {
      chosen_rms = rms;
      chosen = candidate;
      chosen_backtests = backtests;
      method = name;
    }
  }
  if (chosen) {
    p.loss = chosen->loss;
    p.reason.clear();
    p.method = method;
    setInterval(p, standardizedErrorsExcept(*chosen_backtests, p.run_id), options,
                leverageScale(chosen->leverage));
    return;
  }
  p.method = "law";
  setInterval(p, law, options);
}

// Calibration fractions are rounded to 1/40 of a run, so runs at nearly the same point share
// their backtests.
double calibrationFraction(double fraction) {
  return std::clamp(std::round(fraction * 40.0) / 40.0, 0.025, 1.0);
}

}  // namespace

double curveFraction(const RunCurve& run) {
  if (run.points.empty() || run.rates.empty()) return 0.0;
  int64_t last = 0;
  for (const CurveObservation& o : run.points) last = std::max(last, o.updates);
  return std::min(1.0, double(last) / double(run.rates.size()));
}

RunCurve truncateCurve(const RunCurve& run, double fraction) {
  RunCurve out = run;
  out.final_loss.reset();
  const double limit = fraction * double(run.rates.size());
  out.points.clear();
  for (const CurveObservation& o : run.points)
    if (double(o.updates) <= limit) out.points.push_back(o);
  return out;
}

namespace {

// Finished runs by id and final loss, sorted: what a calibration was computed from.
std::vector<std::pair<int64_t, double>> idsAndFinalLosses(
    const std::vector<const RunCurve*>& finished) {
  std::vector<std::pair<int64_t, double>> out;
  for (const RunCurve* r : finished) out.emplace_back(r->run_id, *r->final_loss);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

struct CurveCalibrationCache::Entries {
  std::map<std::pair<std::string, double>, CalibrationEntry> by_group_and_fraction;
};

CurveCalibrationCache::CurveCalibrationCache() : entries_(std::make_unique<Entries>()) {}
CurveCalibrationCache::~CurveCalibrationCache() = default;
int64_t CurveCalibrationCache::hits() const {
  return hits_;
}
int64_t CurveCalibrationCache::misses() const {
  return misses_;
}

std::vector<CurvePrediction> predictFinalLosses(const std::vector<RunCurve>& runs,
                                                const CurveLawOptions& options, bool calibrate,
                                                CurveCalibrationCache* cache) {
  std::vector<CurvePrediction> out;
  CurveCalibrationCache local;
  CurveCalibrationCache& calibrations = cache ? *cache : local;
  std::map<std::string, std::vector<std::pair<int64_t, double>>> finished;  // by group
  // Every arm's finished runs: the pooled peers of every running run, and the key that says
  // when the pooled backtests are stale.
  const std::vector<const RunCurve*> every_arm = finishedRunsOfEveryArm(runs, /*except=*/-1);
  const std::vector<std::pair<int64_t, double>> every_arm_finished = idsAndFinalLosses(every_arm);
  for (const RunCurve& r : runs) {
    if (r.final_loss) continue;
    const std::vector<const RunCurve*> peers = finishedPeers(runs, r.group, r.run_id);
    CurvePrediction p = pointPrediction(r, peers, options);
    if (!calibrate) {
      p.method = "law";
      if (p.loss) setInterval(p, {}, options);
    } else {
      auto group_finished = finished.find(r.group);
      if (group_finished == finished.end()) {
        const std::vector<const RunCurve*> arm = finishedPeers(runs, r.group, /*except=*/-1);
        group_finished = finished.emplace(r.group, idsAndFinalLosses(arm)).first;
      }
      const auto key = std::make_pair(r.group, calibrationFraction(curveFraction(r)));
      CalibrationEntry& entry = calibrations.entries_->by_group_and_fraction[key];
      if (!entry.errors || entry.finished != group_finished->second) {
        entry.finished = group_finished->second;
        entry.every_arm_finished = every_arm_finished;
        entry.errors = groupErrors(runs, r.group, key.second, options);
        ++calibrations.misses_;
      } else {
        if (entry.every_arm_finished != every_arm_finished) {
          entry.every_arm_finished = every_arm_finished;
          entry.errors->peers_pooled = pooledErrors(runs, r.group, key.second);
        }
        ++calibrations.hits_;
      }
      Transfers t = transfers(r, peers);
      t.pooled = pooledTransfer(r, every_arm);
      chooseAndCalibrate(p, t, *entry.errors, options);
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<CurveBacktest> backtestCurves(const std::vector<RunCurve>& runs,
                                          const std::vector<double>& fractions,
                                          const CurveLawOptions& options) {
  std::vector<CurveBacktest> out;
  std::map<std::string, bool> groups;
  for (const RunCurve& r : runs)
    if (r.final_loss) groups[r.group] = true;
  for (const auto& [group, unused] : groups) {
    (void)unused;
    for (double f : fractions) {
      const GroupErrors errors = groupErrors(runs, group, f, options);
      for (const RunCurve& r : runs) {
        if (!r.final_loss || r.group != group) continue;
        CurveBacktest b;
        b.run_id = r.run_id;
        b.name = r.name;
        b.group = group;
        b.fraction = f;
        b.measured = *r.final_loss;
        b.prediction = errors.predictions.at(r.run_id);
        chooseAndCalibrate(b.prediction, storedTransfers(errors, r.run_id), errors, options);
        out.push_back(std::move(b));
      }
    }
  }
  return out;
}

}  // namespace deepladder::fitting
