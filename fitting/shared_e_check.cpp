// The shared-E check of an arm (see shared_e_check.h).
#include "fitting/shared_e_check.h"

#include <algorithm>
#include <cmath>

#include "fitting/log_excess_line.h"
#include "fitting/student_t.h"

namespace deepladder::fitting {
namespace {

// Residual sum of squares in loss of the line of ln(L - E) on ln(C/C0) at this E (NaN when a
// rung lies at or below E).
double rssAt(const std::vector<double>& compute, const std::vector<double>& loss, double E,
             double c_ref) {
  const auto line = fitLogExcessLine(compute, loss, E, c_ref);
  if (!line) return kNaN;
  double rss = 0;
  for (size_t i = 0; i < compute.size(); ++i) {
    const double e = loss[i] - (E + line->A * std::pow(compute[i] / c_ref, -line->gamma));
    rss += e * e;
  }
  return rss;
}

}  // namespace

SharedECheck checkSharedE(const std::vector<double>& compute, const std::vector<double>& loss,
                          double shared_E, double c_ref) {
  SharedECheck c;
  c.rungs = static_cast<int>(compute.size());
  c.shared_E = shared_E;
  if (c.rungs < 4 || !std::isfinite(shared_E)) return c;
  const double min_loss = *std::min_element(loss.begin(), loss.end());
  if (!(min_loss > shared_E)) return c;
  c.rss_shared = rssAt(compute, loss, shared_E, c_ref);
  // Profile E over [0, min loss): a grid, then golden-section refinement around its best cell.
  c.rss_own = c.rss_shared;
  c.own_E = shared_E;
  constexpr int kGrid = 200;
  const double top = min_loss * (1 - 1e-9);
  int best = -1;
  for (int i = 0; i < kGrid; ++i) {
    const double E = top * i / kGrid;
    const double rss = rssAt(compute, loss, E, c_ref);
    if (std::isfinite(rss) && rss < c.rss_own) c.rss_own = rss, c.own_E = E, best = i;
  }
  if (best >= 0) {
    double a = top * std::max(0, best - 1) / kGrid, b = top * std::min(kGrid, best + 1) / kGrid;
    const double phi = (std::sqrt(5.0) - 1) / 2;
    for (int i = 0; i < 60; ++i) {
      const double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
      const double f1 = rssAt(compute, loss, x1, c_ref), f2 = rssAt(compute, loss, x2, c_ref);
      if (!(f2 < f1))
        b = x2;
      else
        a = x1;
    }
    const double E = (a + b) / 2, rss = rssAt(compute, loss, E, c_ref);
    if (std::isfinite(rss) && rss < c.rss_own) c.rss_own = rss, c.own_E = E;
  }
  const int dof = c.rungs - 3;
  if (!(c.rss_own > 0)) return c;
  c.F = std::max(0.0, c.rss_shared - c.rss_own) / (c.rss_own / dof);
  c.p_value = 2 * (1 - studentTCdf(std::sqrt(c.F), dof));
  return c;
}

}  // namespace deepladder::fitting
