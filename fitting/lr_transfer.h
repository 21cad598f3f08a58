// Learning-rate transfer across sizes, from a ladder swept over one numeric option (lr_mult):
//   per rung (arm, size) with >= 3 values: the quadratic y = b0 + b1 x + b2 x^2 of the mean final
//     loss y against x = ln(value), least squares; its optimum x* = -b1 / (2 b2) when b2 > 0, with
//     a 95% interval by the delta method, the noise variance pooled over the arm (below);
//   per arm, over its rungs with >= 3 values: the drift model y = a_r + c (x - x0 - s z_r)^2 with
//     z_r = ln N_r (N: the rung's parameters), linear in (a_r, b0 = -2 c x0, b1 = -2 c s, c) once
//     expanded (y = a_r + b0 x + b1 z_r x + c x^2 + const), so s = -b1 / (2 c), the optimum's
//     slope against ln N, has a t interval (delta method, n - R - 3 degrees of freedom);
//   the diagnostic: "the best learning rate drifts with size: xF per decade of N" when s's 95%
//     interval excludes 0 (F = 10^s, how much the best value multiplies per decade), "transfers"
//     otherwise; "undetermined" without the degrees of freedom.
//
// What it does not do: choose the rung's point (fitting/sweep_envelope.h) or plot it (the sweep
// plot reads rungs[].optimum).
#pragma once

#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct RungOptimum {
  std::string arm, size;
  std::string axis;             // the swept option's label key ("lr_mult")
  double params = kNaN;         // N of the rung (mean over its runs)
  int values = 0;               // distinct values with a finished run
  bool fitted = false;          // a quadratic with b2 > 0
  double optimum = kNaN;        // exp(x*): the best value of the option
  double lo = kNaN, hi = kNaN;  // its 95% interval (NaN without pooled noise)
  double min_loss = kNaN;       // the quadratic's value at the optimum
  bool inside = false;          // the optimum lies within the values tried
  std::string note;             // why there is no optimum ("" when fitted)
};

struct ArmTransfer {
  std::string arm;
  int rungs = 0;                            // rungs with >= 3 values behind the slope
  double slope = kNaN;                      // s = d ln(value*) / d ln N
  double slope_lo = kNaN, slope_hi = kNaN;  // its 95% interval
  double per_decade = kNaN;                 // 10^s: the best value's factor per decade of N
  double per_decade_lo = kNaN, per_decade_hi = kNaN;
  bool drifts = false;       // the interval excludes 0
  bool determined = false;   // the interval exists
  FitDiagnostic diagnostic;  // kind "lr_transfer"
};

struct LrTransfer {
  std::vector<RungOptimum> rungs;  // by arm, then N
  std::vector<ArmTransfer> arms;
};

// From a ladder's finished runs (before the envelope); empty when no rung is swept over one
// numeric option.
LrTransfer learningRateTransfer(const ResultsTable& table);

// "| arm | size | N | values | optimum [95%] |" and one diagnostic line per arm ("" when empty).
std::string lrTransferMarkdown(const LrTransfer& transfer);
nlohmann::json lrTransferToJson(const LrTransfer& transfer);

}  // namespace deepladder::fitting
