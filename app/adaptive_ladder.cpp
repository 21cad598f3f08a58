// An adaptive ladder's decisions (see adaptive_ladder.h).
#include "app/adaptive_ladder.h"

#include <chrono>
#include <cmath>

#include "core/clock_seconds.h"
#include "fitting/ladder_suggest.h"
#include "fitting/suggest_report.h"
#include "storage/ladder_queue.h"
#include "storage/ladder_state.h"
#include "storage/result_points.h"

namespace deepladder::app {
namespace {

const char* kindName(fitting::AdaptiveDecision::Kind kind) {
  switch (kind) {
    case fitting::AdaptiveDecision::kQueue:
      return "queue";
    case fitting::AdaptiveDecision::kWait:
      return "wait";
    case fitting::AdaptiveDecision::kStopBudget:
      return "stop-budget";
    case fitting::AdaptiveDecision::kStopWidth:
      return "stop-width";
  }
  return "?";
}

}  // namespace

AdaptiveLadder::AdaptiveLadder(storage::Database& db, int64_t ladder_id, std::string ladder_dir,
                               int slots, AdaptiveOptions options)
    : db_(db),
      ladder_id_(ladder_id),
      ladder_dir_(std::move(ladder_dir)),
      slots_(std::max(1, slots)),
      options_(std::move(options)) {
  options_.candidates.queued_is_taken = true;
}

std::vector<std::string> AdaptiveLadder::fillSlots(const fitting::ProjectionSnapshot& now) {
  std::vector<std::string> lines;
  // The counted arms' fit intervals now (every arm with a projection, or the asked ones): what
  // more runs narrow (the misfit part of a prediction interval is the law's, as suggest scores).
  std::vector<double> widths;
  for (const auto& a : now.arms) {
    const auto& only = options_.suggest.arms;
    if (only.empty() || std::find(only.begin(), only.end(), a.arm) != only.end())
      widths.push_back(a.fit_hi - a.fit_lo);
  }
  while (!stopped_) {
    const storage::LadderState state = storage::loadLadderState(db_, ladder_id_);
    fitting::AdaptiveBudget budget;
    budget.budget_flops = options_.budget_flops;
    budget.spent_flops = state.planned_flops;
    budget.until_width = options_.until_width;
    budget.free_slots = slots_ - state.active_runs;
    if (budget.free_slots <= 0) break;

    fitting::SuggestResult suggestions;
    suggestions.target = options_.suggest.target;
    fitting::AdaptiveDecision decision = fitting::decideAdaptive(suggestions, widths, budget);
    if (decision.kind != fitting::AdaptiveDecision::kStopWidth) {
      const ResultsTable results =
          storage::ladderResults(db_, ladder_id_, db_.path() + " (ladder " + state.name + ")");
      suggestions = fitting::suggestLadderRuns(results, state.spec, state.runs, options_.candidates,
                                               options_.suggest);
      decision = fitting::decideAdaptive(suggestions, widths, budget);
    }
    if (decision.kind == fitting::AdaptiveDecision::kWait) break;

    storage::DecisionRecord record;
    record.ladder_id = ladder_id_;
    record.created = unixSeconds();
    record.kind = kindName(decision.kind);
    record.spent_flops = budget.spent_flops;
    record.budget_flops = budget.budget_flops;
    record.reason = decision.reason;
    record.candidates_json = fitting::suggestionsToJson(suggestions)["candidates"].dump();
    if (decision.kind == fitting::AdaptiveDecision::kQueue) {
      const ladder::PlannedRun& run = suggestions.ranked[decision.chosen].candidate.run;
      storage::Transaction tx(db_);
      record.run_id = storage::enqueueRun(db_, ladder_id_, ladder_dir_, run);
      db_.insertDecision(record);
      tx.commit();
      lines.push_back("adaptive: queued " + decision.reason);
    } else {
      db_.insertDecision(record);
      stopped_ = true;
      stop_reason_ = decision.reason;
      lines.push_back("adaptive: stop, " + decision.reason);
    }
  }
  return lines;
}

}  // namespace deepladder::app
