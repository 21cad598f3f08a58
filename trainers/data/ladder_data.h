// The training data of a planned ladder, run by run: tokens each run reads (core/data_budget.h)
// against what its training split holds, read from the split itself (each distinct split opened
// once), for `deepladder plan` to report and for `plan`, `run` and `train` to refuse a run that
// would read its split more than data.max_epochs times, before anything is queued. A split that
// cannot be opened (files not there yet, e.g. FineWeb shards on a machine that only plans) is
// reported as unknown, not refused: the worker opens it again, and refuses then.
#pragma once

#include <string>
#include <vector>

#include "core/data_budget.h"
#include "core/ladder/ladder_spec.h"
#include "core/run_config.h"

namespace deepladder::data {

struct RunDataBudget {
  std::string run;     // the planned run's name
  bool known = false;  // the split could be opened
  DataBudget budget;   // tokens_available meaningful when known
  std::string source;  // the split's describe(), or why it could not be opened
  int64_t max_epochs = 1;
};

// One entry per run of `spec`, in its order.
std::vector<RunDataBudget> ladderDataBudgets(const ladder::LadderSpec& spec);

// The same for one run config (`deepladder train`); throws the split's own UserError when it
// cannot be opened.
RunDataBudget runDataBudget(const RunConfig& config);

// Throws UserError naming `source`, every run that would make more than max_epochs passes over
// its split, what it needs and holds, and what to do. Runs whose split is unknown pass.
void requireDataBudgets(const std::vector<RunDataBudget>& budgets, const std::string& source);

}  // namespace deepladder::data
