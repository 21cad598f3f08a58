// The plan_* columns of the runs table (schema v2) and their binding to a RunPlan, in one
// place for every statement that reads or writes them. Internal to storage/.
#pragma once

#include <string>

#include "core/ladder/run_plan.h"
#include "storage/statement.h"

namespace deepladder::storage {

// The columns in binding order (an INSERT column list).
inline constexpr const char* kPlanColumns =
    "task, plan_steps, plan_tokens, plan_flops, plan_params, plan_flops_per_token, plan_depth, "
    "plan_executed_depth, plan_executed_depth_after_growth, plan_crossover_step, plan_ranks, "
    "plan_gpus_per_rank, plan_est_seconds";
inline constexpr int kPlanColumnCount = 13;

// The columns with a table prefix ("r.task, r.plan_steps, ..."), for a SELECT list.
std::string planColumnList(const std::string& prefix);
// "task = ?first, plan_steps = ?first+1, ...", for an UPDATE.
std::string planAssignmentsFrom(int first);

// Binds the plan to parameters first .. first + kPlanColumnCount - 1.
void bindPlan(Statement& s, int first, const ladder::RunPlan& plan);
// Reads the plan from columns first .. first + kPlanColumnCount - 1.
ladder::RunPlan readPlan(const Statement& s, int first);

}  // namespace deepladder::storage
