// Reading a run's serial-task cells for the Serial-task view (see serial_task_data.h).
#include "ui/workbench/serial_task_data.h"

#include <algorithm>

#include "storage/squaring_run.h"

namespace deepladder::ui {

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
  auto read = storage::readSquaringRun(db, run_id);
  if (!read || read->cells.empty()) return std::nullopt;
  SerialTaskData data;
  data.run_id = run_id;
  data.last_step = read->step;
  data.cells = std::move(read->cells);
  data.bits = std::move(read->bits);
  data.ts = std::move(read->ts);
  data.tier = read->tier;
  data.maps = std::move(read->maps);
  data.admissibility = read->admissibility;
  return data;
}

}  // namespace deepladder::ui
