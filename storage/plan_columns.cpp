// Binding the plan_* columns (see plan_columns.h).
#include "storage/plan_columns.h"

namespace deepladder::storage {

namespace {

template <class Each>
std::string joinPlanColumns(Each each) {
  const std::string columns = kPlanColumns;
  std::string out;
  size_t start = 0;
  int index = 0;
  while (start < columns.size()) {
    size_t end = columns.find(", ", start);
    if (end == std::string::npos) end = columns.size();
    out += (out.empty() ? "" : ", ") + each(columns.substr(start, end - start), index++);
    start = end + 2;
  }
  return out;
}

}  // namespace

std::string planColumnList(const std::string& prefix) {
  return joinPlanColumns([&](const std::string& column, int) { return prefix + column; });
}

std::string planAssignmentsFrom(int first) {
  return joinPlanColumns([&](const std::string& column, int i) {
    return column + " = ?" + std::to_string(first + i);
  });
}

void bindPlan(Statement& s, int first, const ladder::RunPlan& p) {
  s.bindText(first, enumName(p.task));
  s.bind(first + 1, p.steps);
  s.bind(first + 2, p.tokens);
  s.bind(first + 3, p.flops);
  s.bind(first + 4, p.params);
  s.bind(first + 5, p.flops_per_token);
  s.bind(first + 6, p.depth);
  s.bind(first + 7, p.executed_depth);
  s.bind(first + 8, p.executed_depth_after_growth);
  s.bind(first + 9, p.crossover_step);
  s.bind(first + 10, p.ranks);
  s.bind(first + 11, p.gpus_per_rank);
  s.bind(first + 12, p.est_seconds);
}

ladder::RunPlan readPlan(const Statement& s, int first) {
  ladder::RunPlan p;
  p.task = enumFromName<Task>(s.columnText(first)).value_or(Task::lm);
  p.steps = s.columnInt(first + 1);
  p.tokens = s.columnInt(first + 2);
  p.flops = s.columnDouble(first + 3);
  p.params = s.columnInt(first + 4);
  p.flops_per_token = s.columnDouble(first + 5);
  p.depth = s.columnInt(first + 6);
  p.executed_depth = s.columnInt(first + 7);
  p.executed_depth_after_growth = s.columnInt(first + 8);
  p.crossover_step = s.columnInt(first + 9);
  p.ranks = s.columnInt(first + 10);
  p.gpus_per_rank = s.columnInt(first + 11);
  p.est_seconds = s.columnDouble(first + 12);
  return p;
}

}  // namespace deepladder::storage
