// The published growth ladder's final validation losses for two arms (FineWeb, GPT-2 tokens,
// depths 6..20): vanilla (8 rungs) and untied_grow (7 rungs). Source: the paper's public data,
// qlabs-eng/scaling-exponents, plotting_scripts/data/fineweb_ladders.csv (rows of those arms,
// columns compute_flops and val_loss as published). Used as realistic ground truth by the
// suggest tests and the live-ladder simulation benchmark.
#pragma once

#include <string>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting::testing {

struct PublishedRung {
  const char* arm;
  int depth;
  double compute_flops;
  double val_loss;
};

inline const std::vector<PublishedRung>& publishedGrowthLadder() {
  static const std::vector<PublishedRung> rows = {
      {"vanilla", 6, 3.252671e+17, 3.560862},      {"vanilla", 8, 1.055751e+18, 3.329581},
      {"vanilla", 10, 2.925844e+18, 3.156175},     {"vanilla", 12, 6.743808e+18, 3.029247},
      {"vanilla", 14, 1.497801e+19, 2.918957},     {"vanilla", 16, 3.060476e+19, 2.825932},
      {"vanilla", 18, 5.572393e+19, 2.752295},     {"vanilla", 20, 1.006363e+20, 2.683423},
      {"untied_grow", 6, 6.990536e+17, 3.355077},  {"untied_grow", 8, 2.542245e+18, 3.130387},
      {"untied_grow", 10, 7.663701e+18, 2.962493}, {"untied_grow", 12, 1.695605e+19, 2.850924},
      {"untied_grow", 14, 3.986691e+19, 2.741565}, {"untied_grow", 16, 8.509694e+19, 2.650865},
      {"untied_grow", 18, 1.486435e+20, 2.587002},
  };
  return rows;
}

// The rows (optionally only depths <= max_depth) as a results table; size "d<depth>", seed 1.
inline ResultsTable publishedTable(int max_depth = 1000) {
  ResultsTable t;
  t.source = "published growth ladder";
  for (const auto& r : publishedGrowthLadder()) {
    if (r.depth > max_depth) continue;
    RunPoint p;
    p.arm = r.arm;
    p.compute_flops = r.compute_flops;
    p.val_loss = r.val_loss;
    p.depth = r.depth;
    p.size = "d" + std::to_string(r.depth);
    p.seed = 1;
    t.points.push_back(p);
  }
  return t;
}

}  // namespace deepladder::fitting::testing
