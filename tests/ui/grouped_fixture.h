// A fixture database for Compare's grouping and the Scatter tab, generated with the storage API
// (no file checked in): a finished ladder "grid" of two arms (vanilla, growth) x lr_mult 0.5, 1,
// 2 x three sizes x three seeds = 54 runs, each with its config's train.lr_mult, parameters
// (1e6, 4e6, 16e6), 20 tokens per parameter and FLOPs = 6 N D. A run's final loss follows
// L = 1.8 + 2.4 (N/1e6)^-0.3 x (1 + 0.08 (log2(lr_mult) - 0.25)^2) (growth: 0.85 of the
// reducible part), plus a seed offset of 0.02 (seed - 2); its curves (train/loss every 10 steps,
// val/loss every 100, 3,000 steps) decay to it as L + 2.5 exp(-step/600) plus a seeded noise of
// +-0.03 (a hash of step and seed: the same database every time).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/run_status.h"
#include "storage/database.h"

namespace deepladder::ui::testing {

inline double gridFinalLoss(const std::string& arm, double params, double lr_mult, int seed) {
  const double reducible = 2.4 * std::pow(params / 1e6, -0.3) *
                           (1 + 0.08 * std::pow(std::log2(lr_mult) - 0.25, 2)) *
                           (arm == "growth" ? 0.85 : 1.0);
  return 1.8 + reducible + 0.02 * (seed - 2);
}

inline double gridCurveLoss(double final_loss, int step, int seed) {
  const double hash = std::sin(step * 12.9898 + seed * 78.233) * 43758.5453;
  return final_loss + 2.5 * std::exp(-step / 600.0) + 0.06 * (hash - std::floor(hash) - 0.5);
}

// Returns the run ids in the order written (arm, lr_mult, size, seed).
inline std::vector<int64_t> buildGroupedFixture(const std::string& path, int steps = 3000) {
  auto db = storage::Database::open(path);
  storage::Transaction tx(*db);
  const int64_t ladder = db->upsertLadder("grid", "[ladder]\nname = \"grid\"\n", "gridhash");
  std::vector<int64_t> ids;
  const char* sizes[] = {"d4", "d8", "d16"};
  for (const std::string arm : {"vanilla", "growth"})
    for (const double lr : {0.5, 1.0, 2.0})
      for (int s = 0; s < 3; ++s)
        for (int seed = 1; seed <= 3; ++seed) {
          storage::RunRecord r;
          r.ladder_id = ladder;
          r.arm = arm;
          r.size = sizes[s];
          r.seed = seed;
          char lr_text[16];
          std::snprintf(lr_text, sizeof lr_text, "%g", lr);
          r.name = arm + "-" + sizes[s] + "-lr_mult" + lr_text + "-s" + std::to_string(seed);
          r.status = RunStatus::kFinished;
          r.config_json = std::string(R"({"train":{"steps":)") + std::to_string(steps) +
                          R"(,"lr_mult":)" + lr_text + "}}";
          r.plan.steps = steps;
          r.device = "cpu";
          r.params = static_cast<int64_t>(1e6 * std::pow(4.0, s));
          r.tokens = 20 * r.params;
          r.flops = 6.0 * double(r.params) * double(r.tokens);
          r.step = steps;
          const double final_loss = gridFinalLoss(arm, double(r.params), lr, seed);
          r.final_loss = final_loss;
          r.started = 1.7e9;
          r.heartbeat = r.finished = 1.7e9 + 600;
          const int64_t id = db->insertRun(r);
          ids.push_back(id);
          std::vector<storage::MetricRow> rows;
          const double tokens_per_step = double(r.tokens) / steps;
          for (int step = 10; step <= steps; step += 10) {
            const double v = gridCurveLoss(final_loss, step, seed);
            const auto tokens = static_cast<int64_t>(step * tokens_per_step);
            const double flops = 6.0 * double(r.params) * double(tokens);
            rows.push_back({id, "train/loss", step, tokens, flops, v + 0.03, step * 0.1});
            if (step % 100 == 0)
              rows.push_back({id, "val/loss", step, tokens, flops, step == steps ? final_loss : v,
                              step * 0.1});
          }
          db->writeMetrics(rows);
        }
  tx.commit();
  return ids;
}

}  // namespace deepladder::ui::testing
