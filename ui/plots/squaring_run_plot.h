// A serial-task run's accuracy cells over (modulus bits x T) at one step, drawn two ways: a
// heatmap with each cell's accuracy written in it, its population chance and, where the tier
// fixes N, its composition ceiling beneath, and out-of-distribution cells outlined (from the
// run's squaring tier); and accuracy against T, one line per modulus size, with the population
// chance of a fixed N. Drawn by the workbench's Serial-task view and by `deepladder plot
// squaring-heatmap`.
#pragma once

#include <QString>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/squaring/run_maps.h"
#include "core/squaring/tiers.h"

class QCustomPlot;

namespace deepladder::plots {

struct SquaringCells {
  // (bits, T) -> (correct, total).
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>> cells;
  std::vector<int64_t> bits;                   // ascending
  std::vector<int64_t> ts;                     // ascending
  const squaring::TierPreset* tier = nullptr;  // the run's tier; nullptr when it names none
  std::optional<squaring::RunMaps> maps;       // chance and ceiling of each cell

  // True when (bits, T) lies outside the tier's training moduli or T (false without a tier).
  bool outOfDistribution(int64_t b, int64_t t) const;
  // True when the tier never trained on `b`-bit moduli.
  bool unseenBits(int64_t b) const;
};

// Heatmap: x = T index, y = bits index.
void drawSquaringHeatmap(QCustomPlot& plot, const SquaringCells& cells, const QString& title);
// Accuracy vs T (log), one line per modulus size.
void drawSquaringAccuracyByT(QCustomPlot& plot, const SquaringCells& cells);

}  // namespace deepladder::plots
