// The finished runs a scaling fit reads, as plain rows: one per run (arm, training FLOPs, final
// loss, and what else the source knows). Lives in core so that storage can read a ladder's
// results straight into it and fitting can fit them, without either layer knowing the other.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace deepladder {

// One finished run: a row of a results CSV, an imported point or a run of a ladder.
struct RunPoint {
  std::string arm;             // architecture arm ("vanilla", "growth-bop", ...)
  double compute_flops = 0.0;  // C: total training FLOPs of the run
  double val_loss = 0.0;       // L: final validation loss (nats per token)
  double params = std::numeric_limits<double>::quiet_NaN();  // N (NaN when the source has none)
  double tokens = std::numeric_limits<double>::quiet_NaN();  // D (NaN when the source has none)
  double depth = std::numeric_limits<double>::quiet_NaN();   // layers (NaN when unknown)
  long source_line = 0;  // line in the CSV (0 when not from a file)
  // A ladder run's identity (0 / "" for CSV rows and imported points).
  int64_t run_id = 0;   // runs.id
  std::string size;     // the rung's size name ("d12")
  int64_t seed = 0;     // the run's seed
  double finished = 0;  // unix seconds when the run ended (the order the ladder learnt it in)
  // The run's sweep point ("lr_mult0.5", core/ladder/sweep.h); "" outside a sweep. A fit keeps,
  // per (arm, size), the point with the lowest mean loss (fitting/sweep_envelope.h).
  std::string sweep;
};

// Runs of one source (a CSV file or a ladder in SQLite).
struct ResultsTable {
  std::string source;  // file name or "db (ladder NAME)", used in messages
  std::vector<RunPoint> points;
  // Sweep points a halving stop ended early (val_loss NaN): tried and judged losing. Nothing fits
  // them; the sweep envelope counts their values as tried, so a rung whose best beat a stopped
  // neighbour is not "at the edge" of its sweep.
  std::vector<RunPoint> stopped;
};

}  // namespace deepladder
