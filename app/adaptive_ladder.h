// Wiring of `deepladder run LADDER --adaptive --budget FLOPS [--until-width W]`: whenever slots
// are free, rank the candidate runs (core/ladder/candidates.h, fitting/suggest.h), let the policy
// (fitting/adaptive_policy.h) pick one or stop, queue it (storage/ladder_queue.h) and store the
// decision with every candidate and its scores (table `decisions`), so the history replays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ladder/candidates.h"
#include "fitting/adaptive_policy.h"
#include "fitting/live_projection.h"
#include "fitting/suggest.h"
#include "storage/database.h"

namespace deepladder::app {

struct AdaptiveOptions {
  double budget_flops = 0;  // --budget: planned FLOPs of all the ladder's runs together
  double until_width = 0;   // --until-width (0 = spend the budget)
  fitting::SuggestOptions suggest = fitting::defaultSuggestOptions();
  ladder::CandidateOptions candidates;  // queued_is_taken is forced on
};

class AdaptiveLadder {
 public:
  AdaptiveLadder(storage::Database& db, int64_t ladder_id, std::string ladder_dir, int slots,
                 AdaptiveOptions options);

  // Fills the free slots: decides and queues until the policy waits or stops. `now`: the live
  // projection (its intervals decide --until-width). Returns one line per decision.
  std::vector<std::string> fillSlots(const fitting::ProjectionSnapshot& now);

  bool stopped() const { return stopped_; }
  const std::string& stopReason() const { return stop_reason_; }

 private:
  storage::Database& db_;
  int64_t ladder_id_;
  std::string ladder_dir_;
  int slots_;
  AdaptiveOptions options_;
  bool stopped_ = false;
  std::string stop_reason_;
};

}  // namespace deepladder::app
