// A run's option values from the runs table (see run_option_rows.h).
#include "storage/run_option_rows.h"

#include <map>

#include "core/run_option_values.h"

namespace deepladder::storage {

const std::vector<std::string>& runRecordOptions() {
  static const std::vector<std::string> names = {"arm", "size", "ladder", "seed"};
  return names;
}

OptionValues runOptionRow(const RunRecord& run, const std::string& ladder_name) {
  OptionValues row = schemaOptionValues(run.config_json);
  row["arm"] = run.arm;
  row["size"] = run.size;
  row["ladder"] = ladder_name;
  row["seed"] = std::to_string(run.seed);
  return row;
}

std::vector<OptionValues> runOptionRows(Database& db, const std::vector<int64_t>& ids) {
  std::map<int64_t, std::string> ladder_names;
  std::vector<OptionValues> rows;
  rows.reserve(ids.size());
  for (int64_t id : ids) {
    const auto run = db.run(id);
    if (!run) {
      rows.emplace_back();
      continue;
    }
    std::string ladder;
    if (run->ladder_id) {
      auto it = ladder_names.find(*run->ladder_id);
      if (it == ladder_names.end()) {
        const auto record = db.ladder(*run->ladder_id);
        it = ladder_names.emplace(*run->ladder_id, record ? record->name : std::string()).first;
      }
      ladder = it->second;
    }
    rows.push_back(runOptionRow(*run, ladder));
  }
  return rows;
}

}  // namespace deepladder::storage
