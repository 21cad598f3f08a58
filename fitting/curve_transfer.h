// The peers' curve ratios: a second predictor of a running run's final validation loss, beside the
// loss-curve law (fitting/loss_curve_law.h). The runs of one arm in a ladder share their schedule's
// shape (warmup, WSD decay, growth at the same fractions), so how much a run still gains from
// fraction f of its run to its end varies smoothly from run to run. For each finished peer,
//   y = ln(final validation loss / level at f),
// the level being the run's validation loss at f where it and at least two peers validated there
// (train.eval_at; the latest validation at most 5% of the run old: the fixed batches its final loss
// is measured on, without the train loss's batch-to-batch noise, which is shared by a rung's
// sweep points but differs from rung to rung), else the mean train loss over the last tenth of
// the run before f (for the target and every peer alike); y is regressed on
// (1, ln T, ln peak rate) over the peers (least squares; covariates the peers do not vary are
// dropped), and the running run's final loss is its own level at f times exp(y) at its T and peak
// rate. On the quick ladder's 45 runs (`deepladder predict --backtest`) this erred 3.1% / 1.2% /
// 0.6% at 1/4 / 1/2 / 3/4 of a run where the law erred 6.9% / 2.0% / 1.1% (the runs are short and
// still fall steeply, which a law fitted on one partial curve extrapolates less well than the
// peers' measured gains); fitting/curve_prediction.cpp uses, per arm and fraction, whichever of the
// law, the peers from validation levels (along a line in ln T, bent, local in ln T and rate, or
// local and pooled over every arm: TransferShape below) and the peers from train levels predicted
// the arm's own finished runs better.
//
// A run whose peak rate lies beyond 2.5 times the peers' range gets no prediction: their gains do
// not say how it gains (the law, which reads the schedule, predicts it). Nor does a run whose
// leverage among them (below) exceeds 24: one whose rate differs from theirs in a way their
// sizes do not show (a rung's x2 point judged from the centre points alone, whose ln T and ln
// peak rate move together from rung to rung).
//
// What it does not do: intervals (curve_prediction.cpp calibrates them the same way for both).
#pragma once

#include <optional>
#include <vector>

#include "fitting/loss_curve_law.h"

namespace deepladder::fitting {

// The mean train loss of `run` over ((fraction - window) T, fraction T] (at least its last three
// train points at or before fraction T); nullopt without train points there.
std::optional<double> curveLevel(const RunCurve& run, double fraction, double window = 0.1);

// Which loss a run's level at f is: its validation loss where it and two peers measured one
// there (else the train level), or the train level always.
enum class TransferLevel { kValidationWhereMeasured, kTrain };

// How the gain may vary with ln T: along a line, or also bent ((ln T)^2 joins the regression,
// from 8 peers on). The runs of one arm gain less and less from size to size at the ladder's top
// (on the quick ladder's vanilla arm at x1, from half a run to its end: 10% at d3, 12% at d4, 14%
// at d5, 15% at d6, 16% at d7), which a line in ln T carries too far at both ends;
// curve_prediction.cpp lets the arm's backtests choose.
// kLocalInLogT: the regression weighted towards the target's size and rate (Gaussian weights in
// ln T of width 0.35: its own rung's other runs and the neighbouring rungs count, the far ones
// hardly; and in the offset of ln peak rate from the peers' rate-size line, of width 0.5: a sweep
// point's neighbours at its own rate count most) with, where the peers' rates spread (a sweep),
// the squared rate offset as a covariate: a sweep point's gain depends on how far its rate
// is from its rung's centre, either way (on the quick ladder, from 1/4 of a run to its end,
// vanilla d7's x0.5 point gains 13% more than x1 and its x2 point 8% less), which a line in ln
// peak rate across rungs cannot follow. (ln T)^2 joins it from 8 peers on, as for kBentInLogT.
// kPooledAcrossArms: the local shape with every arm's finished runs as peers (pass them all):
// each arm's runs gain by their own amount (an indicator per other arm), but how the gain varies
// with size and rate is shared (an arm's smallest rung, which the local shape extrapolates to,
// gains like the other arms' smallest rungs at the same rate). Weights of width 0.5 in ln T and
// 0.35 in rate offset (each arm's from its own rate-size line), another arm's runs counting 0.3
// as much as the target's own; at least two of the target's own arm needed, and the gain is
// clamped to its own arm's spread. On the quick ladder's two full runs this erred 0.49% and 0.54%
// at half a run where the local shape erred 0.63% and 0.62% (their smallest rungs: 0.85% where
// the local shape erred 1.25%), and 0.58% where it erred 1.19% on the 1-hour ladder with one
// seed (Python prototypes of both; docs/ladders.md has the C++ backtests).
enum class TransferShape { kLinearInLogT, kBentInLogT, kLocalInLogT, kPooledAcrossArms };

// The prediction of `target`'s final loss from its level at its own fraction and the finished
// `peers` (final_loss set) at the same fraction; nullopt with fewer than two usable peers.
// Every shape but kPooledAcrossArms reads every peer as one of the target's arm.
// `leverage` (optional) receives the target's leverage, x' (X'X)^-1 x over (1, ln T, ln peak
// rate) whichever covariates the regression kept: about 3/n for a run among its n peers, far more
// for one the peers do not span (a sweep point off its rung's centre judged from centre points
// alone, whose ln T and ln peak rate move together from rung to rung, so that their gains cannot
// tell the rate's effect from the size's). Its prediction error grows with it, and
// curve_prediction.cpp widens its interval as (1 + leverage)^(1/4).
std::optional<double> transferPrediction(
    const RunCurve& target, const std::vector<const RunCurve*>& peers,
    TransferLevel level_kind = TransferLevel::kValidationWhereMeasured, double* leverage = nullptr,
    TransferShape shape = TransferShape::kLinearInLogT);

}  // namespace deepladder::fitting
