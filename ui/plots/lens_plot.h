// Logit-lens profiles: mean KL(p || q_l) of each block's decoded state against the final
// distribution, one curve per eval step of a run (light = early, dark = late), with d_lens
// (l* = argmax KL, d_lens = min{l > l* : KL <= eps}) marked on the latest profile.
// Also d_lens against training compute, one series per arm.
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/lens_depth.h"

class QCustomPlot;

namespace deepladder::plots {

struct LensPlotInput {
  QString run_label;
  std::vector<LensProfile> profiles;  // by step
  double eps = 2.0;
  QString title;
};

void drawLens(QCustomPlot& plot, const LensPlotInput& input);

struct LensDepthPoint {
  std::string arm;
  double compute = 0;  // training FLOPs of the run
  int d_lens = 0;
};

void drawLensDepth(QCustomPlot& plot, const std::vector<LensDepthPoint>& points,
                   const QString& title);

}  // namespace deepladder::plots
