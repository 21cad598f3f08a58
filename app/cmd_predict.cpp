// `deepladder predict --db runs.db --ladder NAME [--backtest] [--fractions 0.25,0.5,0.75]
// [--json]`: the curve predictions of a ladder (fitting/curve_prediction.h). Without --backtest:
// each unfinished run's predicted final validation loss with its 95% prediction interval, from
// its curve so far and its schedule. With --backtest: every finished run cut at each fraction and
// predicted from the others (the interval calibrated without the run's own error), then per
// fraction the mean |relative error| and the coverage of the 95% interval. With
// --replay-halving: sweep halving replayed on the finished runs (fitting/halving_replay.h), the
// points it would have stopped and the FLOPs saved. Wiring only.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "app/command_registry.h"
#include "app/curve_inputs.h"
#include "app/fit_inputs.h"
#include "core/errors.h"
#include "core/ladder/sweep.h"
#include "fitting/curve_prediction.h"
#include "fitting/halving_replay.h"
#include "fitting/json_number.h"
#include "storage/database.h"
#include "storage/run_store_sqlite.h"

namespace deepladder::app {
namespace {

struct PredictOptions {
  std::string db_path = "runs.db";
  std::string ladder;
  bool backtest = false;
  bool replay_halving = false;
  std::string fractions = "0.25,0.5,0.75";
  bool json = false;
};

// "0.25,0.5" -> {0.25, 0.5}; UserError for an empty list or anything outside (0, 1).
std::vector<double> parseFractions(const std::string& text) {
  const std::vector<double> out = parseNumberList(
      text, "--fractions", [](double v) { return v > 0 && v < 1; }, "a fraction in (0, 1)",
      "0.25,0.5");
  if (out.empty()) throw UserError("--fractions: give one or more, e.g. 0.25,0.5,0.75");
  return out;
}

nlohmann::json predictionJson(const fitting::CurvePrediction& p) {
  nlohmann::json j = {{"run_id", p.run_id},       {"name", p.name},
                      {"fraction", p.fraction},   {"calibrated", p.calibrated},
                      {"backtests", p.backtests}, {"misfit", fitting::jsonNumber(p.misfit)},
                      {"method", p.method}};
  if (p.loss) {
    j["predicted"] = *p.loss;
    j["lo"] = p.lo;
    j["hi"] = p.hi;
  } else {
    j["predicted"] = nullptr;
    j["reason"] = p.reason;
  }
  return j;
}

void printPredictions(const std::vector<fitting::CurvePrediction>& predictions) {
  std::printf(
      "| run | measured | predicted final val loss | 95%% prediction interval | predictor | "
      "calibrated by |\n|---|---|---|---|---|---|\n");
  for (const auto& p : predictions) {
    if (!p.loss) {
      std::printf("| %s | %.0f%% | - | %s | | |\n", p.name.c_str(), 100 * p.fraction,
                  p.reason.c_str());
      continue;
    }
    std::printf("| %s | %.0f%% | %.4f | [%.4f, %.4f] | %s | %s |\n", p.name.c_str(),
                100 * p.fraction, *p.loss, p.lo, p.hi,
                p.method == "peers"          ? "the peers' curve ratios"
                : p.method == "peers-bent"   ? "the peers' curve ratios (bent in ln T)"
                : p.method == "peers-local"  ? "the peers' curve ratios (local in ln T and rate)"
                : p.method == "peers-pooled" ? "the peers' curve ratios (every arm's, local)"
                : p.method == "peers-train"  ? "the peers' curve ratios (train levels)"
                                             : "the loss-curve law",
                p.calibrated ? (std::to_string(p.backtests) + " finished runs").c_str()
                             : "the prior (too few finished runs)");
  }
}

// --replay-halving: the finished runs with their wall-clock intervals, replayed.
int replayHalving(const LadderCurves& curves, const std::vector<double>& fractions,
                  const fitting::CurveLawOptions& law, const PredictOptions& o) {
  std::vector<storage::RunRecord> records;
  for (const auto& [id, r] : curves.runs) records.push_back(r);
  const std::set<int64_t> calibration = storage::calibrationRuns(records);
  std::vector<fitting::ReplayRun> runs;
  int unfinished = 0, swept = 0;
  for (const fitting::RunCurve& c : curves.curves) {
    const storage::RunRecord& r = curves.runs.at(c.run_id);
    if (!c.final_loss || !(r.finished > r.started)) {
      ++unfinished;
      continue;
    }
    fitting::ReplayRun run;
    run.curve = c;
    run.rung = r.arm + " " + r.size;
    run.label = ladder::sweepLabelOfRunName(r.name, r.arm, r.size, r.seed);
    run.started = r.started;
    run.finished = r.finished;
    run.flops = r.flops;
    run.calibration = calibration.count(c.run_id) > 0;
    swept += !run.label.empty();
    runs.push_back(std::move(run));
  }
  if (swept == 0)
    throw UserError("ladder \"" + o.ladder +
                    "\" has no finished sweep point to replay halving on ([sweep] in its file)");
  const fitting::HalvingReplay replay = fitting::replayHalving(runs, fractions, law);
  const double share = replay.flops_total > 0 ? replay.flops_saved / replay.flops_total : 0.0;
  if (o.json) {
    nlohmann::json stops = nlohmann::json::array();
    for (const auto& s : replay.stops)
      stops.push_back({{"run_id", s.decision.run_id},
                       {"rung", s.rung},
                       {"label", s.decision.label},
                       {"fraction", s.decision.fraction},
                       {"predicted", s.decision.predicted},
                       {"lo", s.decision.lo},
                       {"hi", s.decision.hi},
                       {"best_label", s.decision.best_label},
                       {"best_loss", s.decision.best_loss},
                       {"flops_saved", s.flops_saved},
                       {"was_best", s.was_best},
                       {"measured", s.measured},
                       {"covered", s.covered()},
                       {"reason", s.decision.reason}});
    std::printf("%s\n", nlohmann::json{{"stops", stops},
                                       {"judgements", replay.judgements},
                                       {"runs", runs.size()},
                                       {"runs_left_out", unfinished},
                                       {"flops_total", replay.flops_total},
                                       {"flops_saved", replay.flops_saved},
                                       {"flops_ratio", 1.0 - share},
                                       {"rungs", replay.rungs},
                                       {"best_stopped", replay.best_stopped},
                                       {"stops_covered", replay.stopsCovered()}}
                            .dump()
                            .c_str());
    return 0;
  }
  std::printf(
      "| rung | stopped | at | predicted final loss [95%%] | rung's best then | FLOPs saved | "
      "measured final loss | in the interval? | the rung's best? |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& s : replay.stops)
    std::printf("| %s | %s | %.4g | %.4f [%.4f, %.4f] | %s %.4f%s | %.3g | %.4f | %s | %s |\n",
                s.rung.c_str(), s.decision.label.c_str(), s.decision.fraction, s.decision.predicted,
                s.decision.lo, s.decision.hi, s.decision.best_label.c_str(), s.decision.best_loss,
                s.decision.best_measured ? " (measured)" : " (predicted)", s.flops_saved,
                s.measured, s.covered() ? "yes" : "no", s.was_best ? "YES: a wrong stop" : "no");
  std::printf(
      "\nhalving at %s would have stopped %zu of %d sweep points (%d judgements): FLOPs %.3g of "
      "%.3g, %.2fx the ladder as it ran; %d of %d rungs keep their best point; %d of the %zu "
      "stopped points' measured final losses lay in the interval they were stopped on.\n"
      "Each run keeps the time it ran in; a halved ladder would also start later runs sooner, so "
      "its wall-clock saving is about the FLOPs' on a ladder that keeps its slots busy.%s\n",
      o.fractions.c_str(), replay.stops.size(), swept, replay.judgements,
      replay.flops_total - replay.flops_saved, replay.flops_total, 1.0 - share,
      replay.rungs - replay.best_stopped, replay.rungs, replay.stopsCovered(), replay.stops.size(),
      unfinished ? (" " + std::to_string(unfinished) +
                    " runs without a final loss were left out (stopped, running or interrupted).")
                       .c_str()
                 : "");
  return 0;
}

int runPredict(const PredictOptions& o) {
  if (access(o.db_path.c_str(), F_OK) != 0)
    throw UserError(o.db_path + ": no such database. Check --db");
  if (o.ladder.empty()) throw UserError("predict: --ladder NAME is required");
  const std::vector<double> fractions = parseFractions(o.fractions);
  auto db = storage::Database::open(o.db_path, /*read_only=*/true);
  requireOneLadderNamed(*db, o.ladder, o.db_path);
  const auto ladder_id = db->findLadder(o.ladder);
  if (!ladder_id) throw UserError("ladder \"" + o.ladder + "\" is not in " + o.db_path);
  const LadderCurves curves = readLadderCurves(*db, *ladder_id);
  const fitting::CurveLawOptions law = fitting::defaultCurveLawOptions();
  if (o.backtest && o.replay_halving)
    throw UserError("predict: give --backtest or --replay-halving, not both");
  if (o.replay_halving) return replayHalving(curves, fractions, law, o);

  if (!o.backtest) {
    const auto predictions = fitting::predictFinalLosses(curves.curves, law);
    if (o.json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& p : predictions) out.push_back(predictionJson(p));
      std::printf("%s\n", nlohmann::json{{"predictions", out}}.dump().c_str());
    } else if (predictions.empty()) {
      std::printf("no unfinished run with a curve in ladder %s\n", o.ladder.c_str());
    } else {
      printPredictions(predictions);
    }
    return 0;
  }

  const auto backtests = fitting::backtestCurves(curves.curves, fractions, law);
  if (backtests.empty())
    throw UserError("ladder \"" + o.ladder + "\" has no finished run with a curve to backtest");
  struct Summary {
    int runs = 0, predicted = 0, covered = 0, calibrated = 0;
    double abs_error = 0;
  };
  std::map<double, Summary> summary;
  nlohmann::json rows = nlohmann::json::array();
  if (!o.json)
    std::printf(
        "| run | fraction | measured | predicted | 95%% interval | error | covered |\n"
        "|---|---|---|---|---|---|---|\n");
  for (const auto& b : backtests) {
    Summary& s = summary[b.fraction];
    ++s.runs;
    if (b.prediction.loss) {
      ++s.predicted;
      s.abs_error += std::abs(b.relError());
      s.covered += b.covered();
      s.calibrated += b.prediction.calibrated;
    }
    if (o.json) {
      nlohmann::json j = predictionJson(b.prediction);
      j["measured"] = b.measured;
      j["cut_at"] = b.fraction;
      j["covered"] = b.covered();
      rows.push_back(j);
    } else if (b.prediction.loss) {
      std::printf("| %s | %.2f | %.4f | %.4f | [%.4f, %.4f] | %+.2f%% | %s |\n", b.name.c_str(),
                  b.fraction, b.measured, *b.prediction.loss, b.prediction.lo, b.prediction.hi,
                  100 * b.relError(), b.covered() ? "yes" : "NO");
    } else {
      std::printf("| %s | %.2f | %.4f | - | %s | | |\n", b.name.c_str(), b.fraction, b.measured,
                  b.prediction.reason.c_str());
    }
  }
  nlohmann::json sums = nlohmann::json::array();
  if (!o.json)
    std::printf(
        "\n| cut at | runs | predicted | calibrated | mean abs error | 95%% coverage |\n"
        "|---|---|---|---|---|---|\n");
  for (const auto& [f, s] : summary) {
    const double mae = s.predicted ? s.abs_error / s.predicted : NAN;
    const double coverage = s.predicted ? double(s.covered) / s.predicted : NAN;
    if (o.json)
      sums.push_back({{"cut_at", f},
                      {"runs", s.runs},
                      {"predicted", s.predicted},
                      {"calibrated", s.calibrated},
                      {"mean_abs_rel_error", std::isfinite(mae) ? nlohmann::json(mae) : nullptr},
                      {"coverage", std::isfinite(coverage) ? nlohmann::json(coverage) : nullptr}});
    else
      std::printf("| %.2f | %d | %d | %d | %.3f%% | %.0f%% (%d of %d) |\n", f, s.runs, s.predicted,
                  s.calibrated, 100 * mae, 100 * coverage, s.covered, s.predicted);
  }
  if (o.json)
    std::printf("%s\n", nlohmann::json{{"backtests", rows}, {"summary", sums}}.dump().c_str());
  return 0;
}

CommandRegistrar register_predict("predict", 52, [](CLI::App& cli) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "predict",
      "Predict each unfinished run's final validation loss from its curve so far and its "
      "learning-rate schedule (Tissue et al.'s law L = L0 + A S1^-alpha - C S2, with a growth "
      "term; alpha, C and the growth gain shared per arm) or from the gains finished runs made "
      "from the same fraction on (its own arm's, or every arm's with an offset per arm, nearest "
      "in size and rate counting most: whichever predicted the arm's finished runs better), "
      "with a 95% prediction interval calibrated on the arm's finished runs; --backtest scores "
      "it on the finished runs, --replay-halving replays sweep halving on them. On the quick "
      "ladder's full runs a prediction at half a run errs about 0.5% (0.8% from train levels "
      "alone, without train.eval_at), at a quarter about 1.4%");
  cmd->add_option("--db", o->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--ladder", o->ladder, "Ladder name or hash")->required();
  cmd->add_flag("--backtest", o->backtest,
                "Cut every finished run at each --fractions, predict it from the others and "
                "print mean |relative error| and the 95% interval's coverage per fraction");
  cmd->add_flag("--replay-halving", o->replay_halving,
                "Replay sweep halving on the finished runs as they ran: the points `[sweep] stop "
                "= \"halving\"` would have stopped at --fractions and the FLOPs it would have "
                "saved (the points of each arm's two smallest rungs are never judged, as in a "
                "live ladder)");
  cmd->add_option("--fractions", o->fractions,
                  "--backtest: where runs are cut; --replay-halving: when points are judged; "
                  "comma-separated")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print exactly one JSON object instead of the tables");
  cmd->callback([o] { commandExitCode() = runPredict(*o); });
});

}  // namespace
}  // namespace deepladder::app
