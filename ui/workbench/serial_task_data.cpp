// Reading a run's serial-task cells for the Serial-task view (see serial_task_data.h).
#include "ui/workbench/serial_task_data.h"

#include "storage/squaring_run.h"

namespace deepladder::ui {

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
