// `deepladder status --db runs.db`: every run with its status, progress and last losses; under a
// squaring run its latest score, test and OOD exact and Max T with its admissibility under the
// benchmark's rules; under a running, interrupted or stopped run its last curve prediction (the
// predicted final validation loss and its 95% interval, stored by sweep halving); for a ladder
// with a sweep, loss against the swept value per rung and the learning-rate transfer check.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/ladder/sweep.h"
#include "core/metric_keys.h"
#include "core/options/admissibility.h"
#include "core/run_status.h"
#include "core/terminal_progress.h"
#include "fitting/lr_transfer.h"
#include "fitting/sweep_envelope.h"
#include "storage/database.h"

namespace deepladder::app {
namespace {

struct StatusOptions {
  std::string db_path = "runs.db";
  std::string ladder;
};

std::string lossText(const std::optional<double>& v) {
  if (!v) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", *v);
  return buffer;
}

// A squaring run's line under its status row: the benchmark's numbers at its latest evaluation
// (the trainer's metrics) and its admissibility; "" for other runs.
std::string squaringLine(storage::Database& db, const storage::RunRecord& run) {
  if (run.config_json.find("\"squaring\"") == std::string::npos) return "";
  const auto admissibility = options::admissibilityOfConfigJson(run.config_json);
  if (!admissibility) return "";
  const auto config = nlohmann::json::parse(run.config_json, nullptr, false);
  if (config.is_discarded() || config.value("task", "") != "squaring") return "";
  auto last = [&](const char* key) -> std::optional<double> {
    const auto points = db.readMetric(run.id, key);
    if (points.empty()) return std::nullopt;
    return points.back().value;
  };
  const auto score = last(metric_keys::kScore), test = last(metric_keys::kTestExact),
             ood = last(metric_keys::kOodExact);
  const auto max_t = last(metric_keys::kDepthMaxTSeen),
             max_t_unseen = last(metric_keys::kDepthMaxTUnseen);
  char text[256];
  if (score && test && ood && max_t && max_t_unseen)
    std::snprintf(text, sizeof text,
                  "       squaring: score %.3f (test %.3f, OOD %.3f), Max T %lld / %lld, %s\n",
                  *score, *test, *ood, (long long)*max_t, (long long)*max_t_unseen,
                  admissibility->label().c_str());
  else
    std::snprintf(text, sizeof text, "       squaring: no score logged yet, %s\n",
                  admissibility->label().c_str());
  return text;
}

// The run's last stored curve prediction (fitting/curve_prediction.h), "" when it has none or
// has finished.
std::string predictionLine(storage::Database& db, const storage::RunRecord& run) {
  if (run.status != RunStatus::kRunning && run.status != RunStatus::kInterrupted &&
      run.status != RunStatus::kStopped)
    return "";
  const auto loss = db.readMetric(run.id, metric_keys::kPredictedFinalLoss);
  const auto lo = db.readMetric(run.id, metric_keys::kPredictedFinalLossLo);
  const auto hi = db.readMetric(run.id, metric_keys::kPredictedFinalLossHi);
  if (loss.empty() || lo.empty() || hi.empty()) return "";
  char text[200];
  std::snprintf(text, sizeof text,
                "       predicted final val loss %.4f [%.4f, %.4f] (95%% prediction interval, "
                "made at step %lld)\n",
                loss.back().value, lo.back().value, hi.back().value, (long long)loss.back().step);
  return text;
}

// Ladders with a sweep: loss against the swept value, one row per rung, from the envelope the
// fits use (fitting/sweep_envelope.h): * marks the point a fit uses, ! one at an edge.
void printSweepTable(const std::vector<storage::RunSummary>& runs) {
  fitting::ResultsTable table;
  for (const auto& s : runs) {
    const auto& r = s.run;
    const std::string label = ladder::sweepLabelOfRunName(r.name, r.arm, r.size, r.seed);
    if (label.empty() || r.status != RunStatus::kFinished || !r.final_loss) continue;
    RunPoint p;
    p.arm = (s.ladder_name.empty() ? "" : s.ladder_name + "/") + r.arm;
    p.size = r.size;
    p.seed = r.seed;
    p.compute_flops = r.flops;
    p.val_loss = *r.final_loss;
    p.sweep = label;
    if (r.params > 0) p.params = double(r.params);
    table.points.push_back(std::move(p));
  }
  if (table.points.empty()) return;
  const fitting::SweepEnvelope envelope = fitting::sweepEnvelope(table);
  std::printf(
      "\nsweep: mean final validation loss over seeds (* lowest: the point fits use; "
      "! at the edge of the values tried: extend the sweep)\n");
  std::string arm;
  std::vector<std::string> labels;
  for (const auto& rung : envelope.rungs) {
    if (rung.arm != arm) {
      arm = rung.arm;
      std::set<std::string> seen;
      labels.clear();
      for (const auto& r : envelope.rungs)
        if (r.arm == arm)
          for (const auto& p : r.points)
            if (seen.insert(p.label).second) labels.push_back(p.label);
      // Numeric order of the first axis's value when every label has one.
      auto value = [](const std::string& label) {
        const auto parsed = ladder::parseSweepLabel(label);
        return parsed.empty() ? 0.0 : std::strtod(parsed[0].second.c_str(), nullptr);
      };
      std::stable_sort(
          labels.begin(), labels.end(),
          [&](const std::string& a, const std::string& b) { return value(a) < value(b); });
      std::printf("%-24s", arm.substr(0, 24).c_str());
      for (const auto& l : labels) std::printf(" %14s", l.substr(0, 14).c_str());
      std::printf("\n");
    }
    std::printf("  %-22s", rung.size.substr(0, 22).c_str());
    for (const auto& l : labels) {
      std::string cell = "-";
      for (const auto& p : rung.points)
        if (p.label == l) {
          cell = lossText(p.mean_loss);
          if (l == rung.chosen) cell += rung.at_edge ? "*!" : "*";
        }
      std::printf(" %14s", cell.c_str());
    }
    std::printf("\n");
  }
  // Does the best learning rate transfer across sizes? (fitting/lr_transfer.h)
  std::printf("%s", fitting::lrTransferMarkdown(fitting::learningRateTransfer(table)).c_str());
}

int runStatus(const StatusOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Train something first, or pass --db");
  auto db = storage::Database::open(options.db_path, /*read_only=*/true);
  std::optional<int64_t> ladder_id;
  if (!options.ladder.empty()) {
    ladder_id = db->findLadder(options.ladder);
    if (!ladder_id)
      throw UserError("ladder \"" + options.ladder + "\" is not in " + options.db_path);
  }
  const auto runs = db->listRuns(ladder_id);
  if (runs.empty()) {
    std::printf("no runs in %s\n", options.db_path.c_str());
    return 0;
  }
  // The run column fits the longest arm/name up to 48 characters (a sweep point's label included).
  size_t width = 22;
  for (const auto& s : runs) {
    const auto& r = s.run;
    const size_t shown =
        (!r.arm.empty() && r.arm != "single" ? r.arm.size() + 1 : 0) + r.name.size();
    width = std::min<size_t>(48, std::max(width, shown));
  }
  std::printf("%5s  %-12s %-*s %-11s %8s %10s %10s %10s %10s\n", "id", "ladder", int(width), "run",
              "status", "step", "tokens", "FLOPs", "train", "val");
  for (const auto& s : runs) {
    const auto& r = s.run;
    std::string name = r.name;
    if (!r.arm.empty() && r.arm != "single") name = r.arm + "/" + r.name;
    if (name.size() > width) name = name.substr(0, width - 1) + "~";
    char flops[32];
    std::snprintf(flops, sizeof flops, "%.2e", r.flops);
    std::printf("%5lld  %-12s %-*s %-11s %8lld %10s %10s %10s %10s\n", (long long)r.id,
                (s.ladder_name.empty() ? "-" : s.ladder_name.substr(0, 12)).c_str(), int(width),
                name.c_str(), toString(r.status), (long long)r.step,
                formatCount(double(r.tokens)).c_str(), flops, lossText(s.last_train_loss).c_str(),
                lossText(s.last_val_loss).c_str());
    if (!r.error.empty() && r.status != RunStatus::kFinished)
      std::printf("       %s\n", r.error.c_str());
    std::printf("%s", squaringLine(*db, r).c_str());
    std::printf("%s", predictionLine(*db, r).c_str());
  }
  printSweepTable(runs);
  return 0;
}

CommandRegistrar register_status("status", 30, [](CLI::App& cli) {
  auto options = std::make_shared<StatusOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "status", "List runs: status, step, tokens, FLOPs, last train and validation loss");
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--ladder", options->ladder, "Only this ladder (name or hash)");
  cmd->callback([options] { commandExitCode() = runStatus(*options); });
});

}  // namespace
}  // namespace deepladder::app
