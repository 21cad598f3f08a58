// Squaring-ladder points from runs and evals (see squaring_points.h).
#include "storage/squaring_points.h"

#include <algorithm>
#include <map>

#include "core/errors.h"
#include "core/ladder/sweep.h"
#include "core/options/admissibility.h"
#include "core/run_config.h"
#include "core/run_status.h"
#include "core/squaring/baselines.h"
#include "core/squaring/dataset.h"
#include "core/squaring/evaluation.h"
#include "core/squaring/tiers.h"
#include "storage/squaring_run.h"

namespace deepladder::storage {

namespace {

double fraction(int64_t correct, int64_t total) {
  return total > 0 ? static_cast<double>(correct) / static_cast<double>(total) : 0.0;
}

}  // namespace

std::vector<SquaringSeedGroup> squaringScoresOverSeeds(const std::vector<SquaringPoint>& points) {
  std::vector<SquaringSeedGroup> groups;
  std::vector<std::vector<squaring::SeedResult>> seeds;
  for (const SquaringPoint& p : points) {
    size_t g = 0;
    while (g < groups.size() &&
           !(groups[g].arm == p.arm && groups[g].size == p.size && groups[g].sweep == p.sweep))
      ++g;
    if (g == groups.size()) {
      groups.push_back({p.arm, p.size, p.sweep, 0, {}});
      seeds.emplace_back();
    }
    groups[g].compute += p.compute;
    seeds[g].push_back({p.seed, p.test_exact, p.ood_exact, p.max_t_seen, p.max_t_unseen});
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    groups[g].score = squaring::scoreOverSeeds(seeds[g]);
    groups[g].compute /= static_cast<double>(seeds[g].size());
  }
  return groups;
}

bool isSquaringLadder(Database& db, const std::string& name) {
  const auto id = db.findLadder(name);
  if (!id) return false;
  for (const auto& s : db.listRuns(*id)) {
    const auto config = storedRunConfig(s.run);
    if (config && config->task == Task::squaring) return true;
  }
  return false;
}

std::vector<SquaringPoint> squaringPoints(Database& db, const std::string& db_label,
                                          const std::string& ladder) {
  const auto id = db.findLadder(ladder);
  if (!id)
    throw UserError("no ladder named \"" + ladder + "\" in " + db_label +
                    ". See `deepladder status --db " + db_label + "`");
  std::vector<SquaringPoint> points;
  for (const auto& s : db.listRuns(*id)) {
    const RunRecord& run = s.run;
    if (run.status != RunStatus::kFinished) continue;
    const auto config = storedRunConfig(run);
    if (!config || config->task != Task::squaring) continue;
    const squaring::TierPreset& tier = squaring::tierPreset(config->squaring.tier);

    // The last step with depth-ladder rows; every set is read at that step.
    const auto rows = db.evals(run.id);
    int64_t step = -1;
    for (const auto& r : rows)
      if (r.task == "squaring/depth") step = std::max(step, r.step);
    if (step < 0)
      throw UserError("run " + std::to_string(run.id) + " (" + run.name + ") of ladder \"" +
                      ladder + "\" in " + db_label +
                      " has no squaring/depth evals. Re-run it with a deepladder that records "
                      "them (every train.eval_every steps)");

    std::map<int64_t, std::pair<int64_t, int64_t>> seen_rungs, unseen_rungs;  // T -> (ok, total)
    int64_t ood_ok = 0, ood_total = 0, test_ok = 0, test_total = 0;
    for (const auto& r : rows) {
      if (r.step != step) continue;
      if (r.task == "squaring/depth") {
        const bool seen = std::count(tier.modulus_bits.begin(), tier.modulus_bits.end(),
                                     static_cast<int>(r.n_bits)) > 0;
        auto& rung = (seen ? seen_rungs : unseen_rungs)[r.T];
        rung.first += r.correct;
        rung.second += r.total;
      } else if (r.task == "squaring/ood_t") {
        ood_ok += r.correct;
        ood_total += r.total;
      } else if (r.task == "squaring/test") {
        test_ok += r.correct;
        test_total += r.total;
      }
    }
    auto maxT = [&](const std::map<int64_t, std::pair<int64_t, int64_t>>& rungs) {
      std::map<int64_t, double> accuracy;
      for (const auto& [t, counts] : rungs) accuracy[t] = fraction(counts.first, counts.second);
      return squaring::maxTFromRungs(tier.depth_ladder, accuracy);
    };
    SquaringPoint p;
    p.run_id = run.id;
    p.arm = run.arm;
    p.size = run.size;
    p.sweep = ladder::sweepLabelOfRunName(run.name, run.arm, run.size, run.seed);
    p.seed = run.seed;
    p.compute = run.flops;
    p.step = step;
    p.max_t_seen = maxT(seen_rungs);
    p.max_t_unseen = maxT(unseen_rungs);
    p.ood_exact = fraction(ood_ok, ood_total);
    p.test_exact = fraction(test_ok, test_total);
    p.score = squaring::benchmarkScore(p.test_exact, p.ood_exact);
    const auto baselines = testAndOodBaselines(config->squaring);
    p.test_chance = baselines.first.chance;
    p.test_ceiling = baselines.first.ceiling;
    p.ood_chance = baselines.second.chance;
    p.ood_ceiling = baselines.second.ceiling;
    const options::Admissibility admissibility = options::admissibility(*config);
    p.admissible = admissibility.admissible;
    p.inadmissible_options = admissibility.offendingText();
    points.push_back(p);
  }
  if (points.empty())
    throw UserError("ladder \"" + ladder + "\" in " + db_label +
                    " has no finished squaring runs yet. Run it first");
  return points;
}

}  // namespace deepladder::storage
