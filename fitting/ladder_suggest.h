// Suggestions for a ladder as `suggest`, `run --adaptive` and the workbench make them: its
// candidate runs (core/ladder/candidates.h), with one sweep point past every rung whose best
// point is at an edge of its sweep and extra seeds of the point each rung's fit uses (the
// envelope of `results`, sweep_envelope.h), ranked by suggestRuns on that envelope.
#pragma once

#include <vector>

#include "core/ladder/candidates.h"
#include "fitting/suggest.h"

namespace deepladder::fitting {

SuggestResult suggestLadderRuns(const ResultsTable& results, const ladder::LadderSpec& spec,
                                const std::vector<ladder::ExistingRun>& existing,
                                ladder::CandidateOptions candidate_options,
                                const SuggestOptions& options);

}  // namespace deepladder::fitting
