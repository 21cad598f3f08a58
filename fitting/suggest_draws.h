// The outcome draws of suggest (fitting/suggest.h): a Latin hypercube over the two sources of a
// plausible outcome, the bootstrap replicate (by its rank) and the residual deviate, shared by
// every candidate (common random numbers), seeded.
#pragma once

#include <cstdint>
#include <vector>

namespace deepladder::fitting {

// Inverse of the standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9).
double normalQuantile(double p);

struct CommonDraw {
  double u = 0;  // in [0, 1): quantile of the replicate among the candidate's predictions
  double z = 0;  // standard normal deviate of the residual scatter
};

// `draws` draws: stratum k of u and of v = Phi(z) each used once, in seeded random pairings.
std::vector<CommonDraw> commonDraws(std::uint64_t seed, int draws);

}  // namespace deepladder::fitting
