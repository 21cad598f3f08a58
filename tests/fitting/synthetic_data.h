// Synthetic ladders for the fitting tests: points exactly on L(C) = E + A (C/C0)^-gamma, with
// optional multiplicative Gaussian noise from a seeded generator. The parameters are the ones
// the design doc quotes (gammas 0.111 vs 0.117); E and A are round values of the same size as a
// FineWeb ladder's (loss ~3 nats at 1e18 FLOPs).
#pragma once

#include <cmath>
#include <random>
#include <string>

#include "fitting/fit_types.h"
#include "fitting/frontier_model.h"

namespace deepladder::fitting::testing {

struct TrueArm {
  std::string name;
  double E, A, gamma;
};

// `rungs` computes from 1e17 upward, half a decade apart; `noise` is the relative sd of the loss.
inline ResultsTable syntheticLadder(const std::vector<TrueArm>& arms, int rungs, double noise,
                                    unsigned seed, double c_ref = 1e18) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  ResultsTable table;
  table.source = "synthetic";
  for (const auto& arm : arms)
    for (int i = 0; i < rungs; ++i) {
      RunPoint p;
      p.arm = arm.name;
      p.compute_flops = 1e17 * std::pow(10.0, 0.5 * i);
      p.val_loss = frontierLoss(p.compute_flops, c_ref, arm.E, arm.A, arm.gamma) *
                   (1.0 + noise * gauss(rng));
      table.points.push_back(p);
    }
  return table;
}

// Baseline and one deeper arm: design doc's exponents 0.111 (vanilla) vs 0.117.
inline std::vector<TrueArm> designDocArms() {
  return {{"vanilla", 1.8, 1.2, 0.111}, {"growth-bop", 1.8, 1.15, 0.117}};
}

}  // namespace deepladder::fitting::testing
