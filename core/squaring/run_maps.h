// The accuracy maps of one squaring run from its per-cell counts (the trainer's Eval rows of one
// step: task, bits, T, correct, total), for `deepladder squaring eval` and the GUI's serial-task
// view. The counts carry no prompts, so the tier's data is regenerated from the run's (tier,
// data_seed) and each cell's first `correct` examples count as right: accuracy, population
// chance and composition ceiling do not depend on which ones. Rows of the iteration sweep
// ("<task>@r=R") are not part of these maps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/squaring/dataset.h"
#include "core/squaring/evaluation.h"

namespace deepladder::squaring {

struct CellCount {
  std::string task;  // "squaring/test", "squaring/ood_t" or "squaring/depth"
  int bits = 0;
  int64_t t = 0;
  int64_t correct = 0;
  int64_t total = 0;
};

struct RunMaps {
  AccuracyMap held_out;  // squaring/test + squaring/ood_t
  AccuracyMap depth;     // squaring/depth (the seen-N and OOD-N cohorts)
  AccuracyMap combined;  // all three, cells of equal (bits, T) pooled
  // Rows whose cell has no regenerated examples of that count (e.g. a run recorded before the
  // data changed); they are left out of the maps.
  std::vector<CellCount> unmatched;
  double test_exact = 0;  // correct / total over the squaring/test rows (unmatched included)
  double ood_exact = 0;   // the same over squaring/ood_t
};

// Maps of a tier's run (training facts from data.train for a fixed-modulus tier's ceilings).
RunMaps runMaps(const TierPreset& tier, const TierDataset& data,
                const std::vector<CellCount>& rows);

}  // namespace deepladder::squaring
