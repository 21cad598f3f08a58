// A fixture database for the workbench tests and benchmark, generated with the storage API
// (no file checked in): one finished ladder "fixture" of two arms x four sizes whose final
// losses follow L(C) = 1.8 + A (C/1e18)^-gamma (vanilla A 1.2, gamma 0.111; growth A 1.15,
// gamma 0.117: the design doc's reference exponents), train/val loss curves for every run,
// logit-lens profiles at three evals, squaring evals on tier E1 (N = 323), one running run.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "storage/database.h"

namespace deepladder::ui::testing {

struct FixtureOptions {
  int points_per_curve = 200;
  int extra_runs = 0;  // more finished runs outside the ladder (benchmark), same curve shape
};

inline double fixtureLoss(double step, double final_loss) {
  return final_loss + 3.0 * std::exp(-step / 60.0) + 0.02 * std::sin(step * 0.7);
}

inline void writeCurves(storage::Database& db, int64_t run_id, int points, double final_loss,
                        double flops_per_step) {
  std::vector<storage::MetricRow> rows;
  rows.reserve(points * 2);
  for (int i = 1; i <= points; ++i) {
    const double step = i * 10;
    const double v = fixtureLoss(i, final_loss);
    rows.push_back({run_id, "train/loss", static_cast<int64_t>(step),
                    static_cast<int64_t>(step * 1024), step * flops_per_step, v + 0.05,
                    step * 0.1});
    if (i % 10 == 0 || i == points)
      rows.push_back({run_id, "val/loss", static_cast<int64_t>(step),
                      static_cast<int64_t>(step * 1024), step * flops_per_step, v, step * 0.1});
  }
  db.writeMetrics(rows);
}

inline void buildFixtureDatabase(const std::string& path, const FixtureOptions& options = {}) {
  auto db = storage::Database::open(path);
  storage::Transaction tx(*db);
  const int64_t ladder =
      db->upsertLadder("fixture", "[ladder]\nname = \"fixture\"\n", "fixturehash");
  struct Arm {
    const char* name;
    double A, gamma;
  };
  const Arm arms[] = {{"vanilla", 1.2, 0.111}, {"growth", 1.15, 0.117}};
  const double computes[] = {1e17, 1e18, 1e19, 1e20};
  const char* sizes[] = {"d2", "d4", "d6", "d8"};
  for (const auto& arm : arms) {
    for (int s = 0; s < 4; ++s) {
      storage::RunRecord r;
      r.ladder_id = ladder;
      r.arm = arm.name;
      r.size = sizes[s];
      r.seed = 1;
      r.name = std::string(arm.name) + "-" + sizes[s] + "-s1";
      r.status = RunStatus::kFinished;
      r.config_json = R"({"train":{"steps":2000},"squaring":{"tier":"E1"}})";
      r.plan.steps = 2000;
      r.device = "cpu";
      r.params = 100000 * (s + 1);
      r.step = 2000;
      r.tokens = 2000 * 1024;
      r.flops = computes[s];
      r.final_loss = 1.8 + arm.A * std::pow(computes[s] / 1e18, -arm.gamma);
      r.started = 1.7e9;
      r.heartbeat = r.finished = 1.7e9 + 600;
      const int64_t id = db->insertRun(r);
      writeCurves(*db, id, options.points_per_curve, *r.final_loss, computes[s] / 2000);
      std::vector<storage::LensRow> lens;
      const int blocks = 2 * (s + 2);
      for (int step : {500, 1000, 2000})
        for (int b = 0; b <= blocks; ++b) {
          const double peak = 1 + b;  // rises to a peak in the middle, then falls to 0
          const double kl =
              b <= blocks / 2 ? peak * (step / 500.0) : (blocks - b) * 1.5 * (step / 2000.0);
          lens.push_back({id, step, b, kl});
        }
      db->writeLens(lens);
      std::vector<storage::EvalRow> evals;
      for (int64_t t : {1, 2, 4, 8, 16, 32, 64})
        for (int64_t bits : {9}) {
          const int64_t total = 288;
          const int64_t correct = t <= 8 ? total : t == 16 ? total * 3 / 4 : total / (t / 4);
          evals.push_back({id, 2000, "squaring", bits, t, correct, total});
        }
      db->writeEvals(evals);
    }
  }
  {
    storage::RunRecord r;
    r.ladder_id = ladder;
    r.arm = "vanilla";
    r.size = "d10";
    r.name = "vanilla-d10-s1";
    r.status = RunStatus::kRunning;
    r.config_json = R"({"train":{"steps":2000}})";
    r.plan.steps = 2000;
    r.device = "cpu:0";
    r.step = 500;
    r.tokens = 500 * 1024;
    r.started = 1.7e9;
    r.heartbeat = 1.7e9 + 100;
    const int64_t id = db->insertRun(r);
    writeCurves(*db, id, options.points_per_curve / 4, 2.1, 1e16);
  }
  tx.commit();
  // The benchmark's runs, 50 to a transaction: one transaction of millions of rows outgrows the
  // page cache and every page read then searches the whole uncheckpointed WAL.
  for (int first = 0; first < options.extra_runs; first += 50) {
    storage::Transaction bench_tx(*db);
    for (int i = first; i < std::min(first + 50, options.extra_runs); ++i) {
      storage::RunRecord r;
      r.arm = "bench";
      r.name = "bench-" + std::to_string(i);
      r.status = RunStatus::kFinished;
      r.flops = 1e18;
      r.final_loss = 2.0 + 0.001 * (i % 100);
      const int64_t id = db->insertRun(r);
      writeCurves(*db, id, options.points_per_curve, *r.final_loss, 1e14);
    }
    bench_tx.commit();
  }
}

}  // namespace deepladder::ui::testing
