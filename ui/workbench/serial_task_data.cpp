// Reading a run's serial-task cells for the Serial-task view (see serial_task_data.h).
#include "ui/workbench/serial_task_data.h"

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>

#include "core/run_config.h"
#include "core/squaring/baselines.h"
#include "core/squaring/run_dataset.h"
#include "storage/database.h"

namespace deepladder::ui {
namespace {

// The run's squaring data options: tier, data_seed, data_dir (tier "" when it has none or is not
// a squaring run).
SquaringConfig squaringOf(const storage::RunRecord& run) {
  SquaringConfig c;
  c.tier.clear();
  try {
    const auto j = nlohmann::json::parse(run.config_json);
    if (j.contains("squaring") && j["squaring"].contains("tier")) {
      c.tier = j["squaring"]["tier"].get<std::string>();
      c.data_seed = j["squaring"].value("data_seed", int64_t{0});
      c.data_dir = j["squaring"].value("data_dir", std::string());
    }
  } catch (const std::exception&) {
    c.tier.clear();
  }
  return c;
}

// A run's data (regenerated, or read from data_dir), once per (tier, seed, directory): the medium
// tiers take a few hundred ms. Loads run on pool threads, hence the lock.
std::shared_ptr<const squaring::TierDataset> runData(const SquaringConfig& config) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, int64_t, std::string>,
                  std::shared_ptr<const squaring::TierDataset>>
      cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[{config.tier, config.data_seed, config.data_dir}];
  if (!slot) slot = std::make_shared<const squaring::TierDataset>(squaring::runDataset(config));
  return slot;
}

}  // namespace

bool SerialTaskData::outOfDistribution(int64_t b, int64_t t) const {
  if (!tier) return false;
  const bool seen_b = std::count(tier->modulus_bits.begin(), tier->modulus_bits.end(), b) > 0;
  const bool seen_t = std::count(tier->train_t.begin(), tier->train_t.end(), t) > 0;
  return !seen_b || !seen_t;
}

bool SerialTaskData::unseenBits(int64_t b) const {
  return tier && std::count(tier->modulus_bits.begin(), tier->modulus_bits.end(), b) == 0;
}

std::optional<SerialTaskData> loadSerialTask(storage::Database& db, int64_t run_id) {
  const auto evals = db.evals(run_id);
  const auto run = db.run(run_id);
  if (evals.empty() || !run) return std::nullopt;
  SerialTaskData data;
  data.run_id = run_id;
  for (const auto& e : evals) data.last_step = std::max(data.last_step, e.step);
  std::set<int64_t> bits_set, t_set;
  std::vector<squaring::CellCount> counts;
  for (const auto& e : evals) {
    if (e.step != data.last_step || e.task.find("@r=") != std::string::npos) continue;
    auto& c = data.cells[{e.n_bits, e.T}];
    c.first += e.correct;
    c.second += e.total;
    bits_set.insert(e.n_bits);
    t_set.insert(e.T);
    counts.push_back({e.task, static_cast<int>(e.n_bits), e.T, e.correct, e.total});
  }
  if (data.cells.empty()) return std::nullopt;
  data.bits.assign(bits_set.begin(), bits_set.end());
  data.ts.assign(t_set.begin(), t_set.end());
  data.admissibility = options::admissibilityOfConfigJson(run->config_json);
  const SquaringConfig data_options = squaringOf(*run);
  try {
    if (!data_options.tier.empty()) {
      data.tier = &squaring::tierPreset(data_options.tier);
      data.maps = squaring::runMaps(*data.tier, *runData(data_options), counts);
    }
  } catch (const std::exception&) {
  }
  return data;
}

}  // namespace deepladder::ui
