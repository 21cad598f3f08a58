// The envelope of a ladder with a sweep: for each (arm, size) the fit keeps the runs of the sweep
// point with the lowest mean final validation loss over its seeds, and notes which point that
// was and whether it sits at an end of the values tried ("best at edge: extend the sweep"). A
// step of every fit's inputs (fitFrontier and LadderFitter call it), so fits, exports, plots,
// the live projection and suggestions all see the same points.
//
// Points without a sweep label (a ladder without a sweep, a results CSV) pass through unchanged.
#pragma once

#include <vector>

#include "core/ladder/sweep.h"
#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct SweepEnvelope {
  ResultsTable table;                  // every point of the chosen sweep points, plus unswept ones
  std::vector<SweepRungChoice> rungs;  // one per swept (arm, size), by arm then compute
};

SweepEnvelope sweepEnvelope(const ResultsTable& table);

// "best at edge: extend the sweep (vanilla d5: lr_mult 0.25, the smallest tried)" for each rung
// at an edge.
std::vector<FitDiagnostic> sweepEdgeDiagnostics(const std::vector<SweepRungChoice>& rungs);

// The rungs at an edge, as the candidates of `suggest` and `run --adaptive` take them (one sweep
// point past each edge, core/ladder/sweep_extension.h).
std::vector<ladder::SweepEdge> sweepEdges(const std::vector<SweepRungChoice>& rungs);

}  // namespace deepladder::fitting
