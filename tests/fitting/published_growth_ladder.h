// The published growth ladder's final validation losses for two arms, vanilla (8 rungs, depths
// 6..20) and untied_grow (7 rungs, depths 6..18), read from the paper's data fixture
// tests/fitting/data/paper_fineweb_ladders.csv (where it came from is noted there). Used as
// realistic ground truth by the suggest tests and the live-ladder simulation benchmark.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "fitting/fit_types.h"
#include "fitting/results_csv.h"

namespace deepladder::fitting::testing {

struct PublishedRung {
  std::string arm;
  int depth;
  double compute_flops;
  double val_loss;
};

inline const std::vector<PublishedRung>& publishedGrowthLadder() {
  static const std::vector<PublishedRung> rows = [] {
    std::vector<PublishedRung> out;
    const ResultsTable all = readResultsCsv(std::string(DEEPLADDER_SOURCE_DIR) +
                                            "/tests/fitting/data/paper_fineweb_ladders.csv");
    for (const auto& p : all.points)
      if (p.arm == "vanilla" || p.arm == "untied_grow")
        out.push_back({p.arm, static_cast<int>(std::lround(p.depth)), p.compute_flops, p.val_loss});
    return out;
  }();
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
