// One arm's residual block (see arm_residuals.h).
#include "fitting/arm_residuals.h"

#include <algorithm>
#include <cmath>

namespace deepladder::fitting {

bool ArmResiduals::Evaluate(double const* const* p, double* r, double** J) const {
  const double E = p[0][0], A = p[1][0], gamma = p[2][0];
  for (size_t i = 0; i < x_.size(); ++i) {
    // Exponent capped so a runaway gamma gives a huge finite term, never inf (0 * inf = NaN).
    const double e = std::exp(std::min(-gamma * x_[i], 700.0));
    const double raw = E + A * e - y_[i];
    double scale = 1.0;  // d rt / d raw
    r[i] = raw;
    if (delta_ > 0 && std::fabs(raw) > delta_) {
      const double rt = std::sqrt(2.0 * delta_ * std::fabs(raw) - delta_ * delta_);
      r[i] = raw > 0 ? rt : -rt;
      scale = delta_ / rt;
    }
    if (J) {
      if (J[0]) J[0][i] = scale;
      if (J[1]) J[1][i] = scale * e;
      if (J[2]) J[2][i] = -scale * A * x_[i] * e;
    }
  }
  return true;
}

}  // namespace deepladder::fitting
