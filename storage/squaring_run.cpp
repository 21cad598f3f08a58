// Reading one squaring run's evals and maps (see squaring_run.h).
#include "storage/squaring_run.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/options/option_json.h"
#include "core/squaring/run_dataset.h"

namespace deepladder::storage {
namespace {

using DataKey = std::tuple<std::string, int64_t, std::string>;  // tier, data seed, data directory

DataKey dataKey(const SquaringConfig& config) {
  return {config.tier, config.data_seed, config.data_dir};
}

// Splits "squaring/test@r=4" into (4, "test"); nullopt for a task outside the iteration sweep.
std::optional<std::pair<int64_t, std::string>> sweepTask(const std::string& task) {
  const auto at = task.find("@r=");
  if (at == std::string::npos) return std::nullopt;
  const auto slash = task.find('/');
  const size_t set_begin = slash == std::string::npos || slash > at ? 0 : slash + 1;
  try {
    return std::make_pair(std::stoll(task.substr(at + 3)), task.substr(set_begin, at - set_begin));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void tallyRows(SquaringRunRead& read) {
  std::set<int64_t> bits, ts;
  for (const auto& [task, rows] : read.rows_by_task) {
    const auto sweep = sweepTask(task);
    for (const EvalRow& row : rows) {
      CellTally& cell = sweep ? read.iteration_sweep.cells[sweep->first][{sweep->second, row.T}]
                              : read.cells[{row.n_bits, row.T}];
      cell.first += row.correct;
      cell.second += row.total;
      if (sweep) {
        read.iteration_sweep.columns.insert({sweep->second, row.T});
      } else {
        bits.insert(row.n_bits);
        ts.insert(row.T);
      }
    }
  }
  read.bits.assign(bits.begin(), bits.end());
  read.ts.assign(ts.begin(), ts.end());
}

void computeMaps(SquaringRunRead& read) {
  // Evals are the squaring task's rows: any run that has them is read by its squaring options.
  if (!read.config || read.config->squaring.tier.empty()) return;
  std::vector<squaring::CellCount> counts;
  for (const auto& [task, rows] : read.rows_by_task)
    for (const EvalRow& row : rows)
      counts.push_back({task, static_cast<int>(row.n_bits), row.T, row.correct, row.total});
  try {
    const squaring::TierPreset& tier = squaring::tierPreset(read.config->squaring.tier);
    read.data = squaringRunData(read.config->squaring);
    read.maps = squaring::runMaps(tier, *read.data, counts);
    read.tier = &tier;
  } catch (const std::exception& e) {
    read.data.reset();
    read.maps_error = e.what();
  }
}

}  // namespace

std::optional<RunConfig> storedRunConfig(const RunRecord& run) {
  try {
    return options::decodeRunConfig(nlohmann::json::parse(run.config_json));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::shared_ptr<const squaring::TierDataset> squaringRunData(const SquaringConfig& config) {
  static std::mutex mutex;
  static std::map<DataKey, std::shared_ptr<const squaring::TierDataset>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[dataKey(config)];
  if (!slot) slot = std::make_shared<const squaring::TierDataset>(squaring::runDataset(config));
  return slot;
}

std::pair<squaring::SetBaselines, squaring::SetBaselines> testAndOodBaselines(
    const SquaringConfig& config) {
  static std::mutex mutex;
  static std::map<DataKey, std::pair<squaring::SetBaselines, squaring::SetBaselines>> cache;
  const auto data = squaringRunData(config);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(dataKey(config));
  if (it == cache.end()) {
    const auto closure = squaring::tierCompositionClosure(squaring::tierPreset(config.tier), *data);
    it = cache
             .emplace(dataKey(config),
                      std::make_pair(squaring::setBaselines(data->test, closure.get()),
                                     squaring::setBaselines(data->ood_t, closure.get())))
             .first;
  }
  return it->second;
}

std::optional<SquaringRunRead> readSquaringRun(Database& db, int64_t run_id, int64_t step) {
  auto run = db.run(run_id);
  if (!run) return std::nullopt;
  const auto rows = db.evals(run_id);
  SquaringRunRead read;
  read.step = step;
  if (read.step < 0)
    for (const EvalRow& row : rows) read.step = std::max(read.step, row.step);
  for (const EvalRow& row : rows)
    if (row.step == read.step) read.rows_by_task[row.task].push_back(row);
  if (read.rows_by_task.empty()) return std::nullopt;
  read.run = std::move(*run);
  read.config = storedRunConfig(read.run);
  if (read.config) read.admissibility = options::admissibility(*read.config);
  tallyRows(read);
  computeMaps(read);
  return read;
}

}  // namespace deepladder::storage
