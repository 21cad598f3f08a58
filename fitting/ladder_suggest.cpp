// A ladder's suggestions (see ladder_suggest.h).
#include "fitting/ladder_suggest.h"

#include "fitting/sweep_envelope.h"

namespace deepladder::fitting {

SuggestResult suggestLadderRuns(const ResultsTable& results, const ladder::LadderSpec& spec,
                                const std::vector<ladder::ExistingRun>& existing,
                                ladder::CandidateOptions candidate_options,
                                const SuggestOptions& options) {
  candidate_options.sweep_edges = sweepEdges(sweepEnvelope(results).rungs);
  return suggestRuns(results, ladder::candidateRuns(spec, existing, candidate_options), options);
}

}  // namespace deepladder::fitting
