// A ladder's suggestions (see ladder_suggest.h).
#include "fitting/ladder_suggest.h"

#include "fitting/sweep_envelope.h"

namespace deepladder::fitting {

SuggestResult suggestLadderRuns(const ResultsTable& results, const ladder::LadderSpec& spec,
                                const std::vector<ladder::ExistingRun>& existing,
                                ladder::CandidateOptions candidate_options,
                                const SuggestOptions& options) {
  // Scored on the envelope, as the fits see the ladder: the other sweep points of a rung are not
  // seeds of it.
  const SweepEnvelope envelope = sweepEnvelope(results);
  candidate_options.sweep_edges = sweepEdges(envelope.rungs);
  for (const SweepRungChoice& r : envelope.rungs)
    candidate_options.sweep_chosen[{r.arm, r.size}] = r.chosen;
  return suggestRuns(envelope.table, ladder::candidateRuns(spec, existing, candidate_options),
                     options);
}

}  // namespace deepladder::fitting
