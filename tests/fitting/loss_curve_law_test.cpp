// The loss-curve law's derivatives (fitting/loss_curve_law.h, curveLawPoint): the fit's Jacobian
// is written out by hand, so each of its six columns is checked against a central finite
// difference of the law itself, before and after a growth crossover, for train and validation
// points; and curveLawLoss, what synthetic curves and predictions read, is the same law.
#include "fitting/loss_curve_law.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

using namespace deepladder::fitting;

namespace {

// The law at `p` (L0, ln A, alpha, C, g, delta).
double lawAt(const std::array<double, 6>& p, const CurveLawAreas& at) {
  CurveGroupParameters group;
  group.alpha = p[2];
  group.c = p[3];
  group.g = p[4];
  group.delta = p[5];
  return curveLawPoint(group, p[0], p[1], at).loss;
}

void expectDerivativesMatchFiniteDifferences(const CurveLawAreas& at) {
  const std::array<double, 6> p = {1.3, std::log(2.5), 0.45, 0.07, 0.8, 0.02};
  CurveGroupParameters group;
  group.alpha = p[2];
  group.c = p[3];
  group.g = p[4];
  group.delta = p[5];
  const CurveLawPoint law = curveLawPoint(group, p[0], p[1], at);
  for (int i = 0; i < 6; ++i) {
    const double h = 1e-6;
    std::array<double, 6> up = p, down = p;
    up[i] += h;
    down[i] -= h;
    const double numeric = (lawAt(up, at) - lawAt(down, at)) / (2 * h);
    EXPECT_NEAR(law.derivative[i], numeric, 1e-7 * (1 + std::fabs(numeric)))
        << "parameter " << i << " (L0, ln A, alpha, C, g, delta)";
  }
}

}  // namespace

TEST(LossCurveLaw, DerivativesMatchFiniteDifferencesBeforeAndAfterGrowth) {
  CurveLawAreas before;
  before.log_s1 = std::log(3.7);
  before.s2 = 0.4;
  expectDerivativesMatchFiniteDifferences(before);  // g and delta: no effect here
  CurveLawAreas after = before;
  after.log_s1 = std::log(6.1);
  after.log_s1c = std::log(4.2);
  after.validation = true;
  expectDerivativesMatchFiniteDifferences(after);
  CurveGroupParameters group;
  group.g = 0.8;
  EXPECT_EQ(curveLawPoint(group, 1, 0, before).derivative[4], 0.0);  // no growth term yet
  EXPECT_EQ(curveLawPoint(group, 1, 0, before).derivative[5], 0.0);  // a train point
}

TEST(LossCurveLaw, LossFromASchedulesAreasIsTheLawAtThatPoint) {
  const std::vector<double> rates = {0.5, 1.0, 1.0, 1.0, 0.75, 0.5, 0.25, 0.0};
  const ScheduleAreas areas = scheduleAreas(rates, defaultCurveLawOptions());
  CurveGroupParameters group;
  group.alpha = 0.5;
  group.c = 0.1;
  group.g = 1.5;
  group.delta = 0.03;
  const CurveRunParameters run{1.2, 0.8};
  for (int64_t u = 1; u <= 8; ++u) {
    // Growth at update 3: S1^-alpha's fall is (1 + g) times as fast from there on, continuously.
    const double s1 = areas.s1[u], s1c = areas.s1[3];
    const double x = std::pow(s1, -0.5);
    const double reducible = u > 3 ? x - 1.5 * (std::pow(s1c, -0.5) - x) : x;
    const double expected = 1.2 + 0.8 * reducible - 0.1 * areas.s2[u] + 0.03;
    EXPECT_NEAR(curveLawLoss(group, run, areas, /*crossover=*/3, u, /*validation=*/true), expected,
                1e-12)
        << "update " << u;
  }
}
