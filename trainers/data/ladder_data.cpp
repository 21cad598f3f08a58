// Tokens needed vs available per planned run (see ladder_data.h).
#include "trainers/data/ladder_data.h"

#include <map>
#include <memory>
#include <tuple>

#include "core/errors.h"
#include "trainers/data/token_data.h"

namespace deepladder::data {

namespace {

RunDataBudget budgetOf(const std::string& run, const RunConfig& c, int64_t available, bool known,
                       const std::string& source) {
  RunDataBudget b;
  b.run = run;
  b.known = known;
  b.budget = dataBudget(c.train.steps, c.train.batch_size, c.model.seq_len, known ? available : 0);
  b.source = source;
  b.max_epochs = c.data.max_epochs;
  return b;
}

// A squaring run trains on its tier's own examples, epoch after epoch by design: no token split
// to budget.
bool trainsOnTierExamples(const RunConfig& c) {
  return c.task == Task::squaring;
}

RunDataBudget tierExamplesBudget(const std::string& run, const RunConfig& c) {
  return budgetOf(run, c, 0, false,
                  "a squaring run trains on tier " + c.squaring.tier +
                      "'s examples, repeated by design; no token budget applies");
}

}  // namespace

RunDataBudget runDataBudget(const RunConfig& config) {
  if (trainsOnTierExamples(config)) return tierExamplesBudget(config.name, config);
  const auto split = openTokenData(config.data, Split::kTrain, config.model.seq_len);
  return budgetOf(config.name, config, split->size(), true, split->describe());
}

std::vector<RunDataBudget> ladderDataBudgets(const ladder::LadderSpec& spec) {
  struct Opened {
    bool known = false;
    int64_t tokens = 0;
    std::string source;
  };
  // A split's size does not depend on seq_len, only its one-window check does: open each
  // (kind, path or built-in corpus) once with the smallest seq_len that uses it.
  std::map<std::tuple<DataKind, std::string>, Opened> splits;
  std::vector<RunDataBudget> out;
  for (const auto& run : spec.runs) {
    if (trainsOnTierExamples(run.config)) {
      out.push_back(tierExamplesBudget(run.name, run.config));
      continue;
    }
    const DataConfig& d = run.config.data;
    const auto key =
        std::make_tuple(d.kind, d.kind == DataKind::builtin ? enumName(d.corpus) : d.train);
    auto found = splits.find(key);
    if (found == splits.end()) {
      Opened opened;
      try {
        const auto split = openTokenData(d, Split::kTrain, 1);
        opened = {true, split->size(), split->describe()};
      } catch (const UserError& e) {
        opened = {false, 0, e.what()};
      }
      found = splits.emplace(key, opened).first;
    }
    out.push_back(budgetOf(run.name, run.config, found->second.tokens, found->second.known,
                           found->second.source));
  }
  return out;
}

void requireDataBudgets(const std::vector<RunDataBudget>& budgets, const std::string& source) {
  std::string problems;
  int count = 0;
  for (const auto& b : budgets) {
    if (!b.known) continue;
    const auto problem = dataBudgetProblem(b.budget, b.max_epochs);
    if (!problem) continue;
    if (++count <= 5) problems += "\n  " + b.run + " " + *problem;
  }
  if (count == 0) return;
  const std::string more = count > 5 ? "\n  (and " + std::to_string(count - 5) + " more)" : "";
  throw UserError(source + ": data.max_epochs: " + std::to_string(count) +
                  " run(s) would read their training split more than data.max_epochs times, "
                  "repeating data:" +
                  problems + more);
}

}  // namespace deepladder::data
