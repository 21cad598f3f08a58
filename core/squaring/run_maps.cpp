// A run's accuracy maps from its per-cell counts (see run_maps.h).
#include "core/squaring/run_maps.h"

#include <map>

#include "core/squaring/baselines.h"
#include "core/squaring/modular_arithmetic.h"

namespace deepladder::squaring {

namespace {

using CellKey = std::pair<int, int64_t>;  // (bits, T)

std::map<CellKey, std::vector<Example>> byCell(const std::vector<Example>& examples) {
  std::map<CellKey, std::vector<Example>> cells;
  for (const auto& e : examples) cells[{bitLength(e.n), e.t}].push_back(e);
  return cells;
}

}  // namespace

RunMaps runMaps(const TierPreset& tier, const TierDataset& data,
                const std::vector<CellCount>& rows) {
  RunMaps maps{AccuracyMap(tier), AccuracyMap(tier), AccuracyMap(tier), {}, 0, 0};
  const auto closure = tierCompositionClosure(tier, data);
  for (AccuracyMap* map : {&maps.held_out, &maps.depth, &maps.combined})
    map->setCompositionClosure(closure);
  std::map<std::string, std::map<CellKey, std::vector<Example>>> sets;
  sets["squaring/test"] = byCell(data.test);
  sets["squaring/ood_t"] = byCell(data.ood_t);
  sets["squaring/depth"] = byCell(data.depth_seen);
  for (auto& [key, examples] : byCell(data.depth_ood_n)) sets["squaring/depth"][key] = examples;

  int64_t test_ok = 0, test_total = 0, ood_ok = 0, ood_total = 0;
  for (const CellCount& row : rows) {
    const auto set = sets.find(row.task);
    if (set == sets.end()) continue;  // sweep rows and other tasks
    if (row.task == "squaring/test") {
      test_ok += row.correct;
      test_total += row.total;
    } else if (row.task == "squaring/ood_t") {
      ood_ok += row.correct;
      ood_total += row.total;
    }
    const auto cell = set->second.find({row.bits, row.t});
    if (cell == set->second.end() || static_cast<int64_t>(cell->second.size()) != row.total) {
      maps.unmatched.push_back(row);
      continue;
    }
    AccuracyMap& own = row.task == "squaring/depth" ? maps.depth : maps.held_out;
    for (int64_t i = 0; i < row.total; ++i) {
      const Example& e = cell->second[static_cast<size_t>(i)];
      own.add(e, i < row.correct);
      maps.combined.add(e, i < row.correct);
    }
  }
  maps.test_exact = test_total ? static_cast<double>(test_ok) / static_cast<double>(test_total) : 0;
  maps.ood_exact = ood_total ? static_cast<double>(ood_ok) / static_cast<double>(ood_total) : 0;
  return maps;
}

}  // namespace deepladder::squaring
