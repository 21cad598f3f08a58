// LR schedules: warmup start and peak, cosine floor at the last step, WSD flat phase and end.
#include "trainers/lr_schedule.h"

#include <gtest/gtest.h>

#include "core/learning_rate_schedule.h"
#include "trainers/growth.h"

namespace deepladder::trainers {
namespace {

TrainConfig schedule(Schedule kind) {
  TrainConfig t;
  t.schedule = kind;
  t.lr = 1e-2;
  t.min_lr_ratio = 0.1;
  t.steps = 100;
  t.warmup_steps = 10;
  t.decay_fraction = 0.2;
  return t;
}

TEST(LearningRate, WarmupRisesLinearlyToThePeak) {
  const TrainConfig t = schedule(Schedule::cosine);
  EXPECT_DOUBLE_EQ(learningRate(t, 0), 1e-3);
  EXPECT_DOUBLE_EQ(learningRate(t, 4), 5e-3);
  EXPECT_DOUBLE_EQ(learningRate(t, 9), 1e-2);
  EXPECT_DOUBLE_EQ(learningRate(t, 10), 1e-2);  // cosine starts at the peak
}

TEST(LearningRate, CosineEndsAtTheFloorAndIsHalfwayInTheMiddle) {
  const TrainConfig t = schedule(Schedule::cosine);
  EXPECT_NEAR(learningRate(t, 99), 1e-3, 1e-15);
  // middle of the cosine span [10, 99]: (peak + floor) / 2
  EXPECT_NEAR(learningRate(t, 10) + learningRate(t, 99), 2 * 5.5e-3, 1e-12);
  EXPECT_GT(learningRate(t, 50), learningRate(t, 60));
}

TEST(LearningRate, WsdStaysFlatThenDecaysLinearlyToTheFloor) {
  const TrainConfig t = schedule(Schedule::wsd);
  EXPECT_DOUBLE_EQ(learningRate(t, 0), 1e-3);
  EXPECT_DOUBLE_EQ(learningRate(t, 10), 1e-2);
  EXPECT_DOUBLE_EQ(learningRate(t, 80), 1e-2);  // decay start (80): still the peak
  EXPECT_LT(learningRate(t, 81), 1e-2);
  EXPECT_NEAR(learningRate(t, 99), 1e-3, 1e-15);
  EXPECT_NEAR(learningRate(t, 89) - learningRate(t, 90), learningRate(t, 90) - learningRate(t, 91),
              1e-12);  // linear
}

TEST(LearningRate, NoWarmupStartsAtThePeak) {
  TrainConfig t = schedule(Schedule::cosine);
  t.warmup_steps = 0;
  EXPECT_DOUBLE_EQ(learningRate(t, 0), 1e-2);
}

// core/learning_rate_schedule.h reimplements these rates for code that does not link LibTorch:
// the two agree at every update, with and without growth.
TEST(LearningRate, CoreReimplementationAgreesAtEveryUpdate) {
  for (Schedule kind : {Schedule::cosine, Schedule::wsd}) {
    RunConfig c;
    c.train = schedule(kind);
    c.model.n_layer = 2;
    c.model.grow_layers = 4;
    c.model.grow_fraction = 0.55;
    c.model.rewarm_steps = 7;
    const std::vector<double> core = learningRates(c);
    for (int64_t s = 0; s < c.train.steps; ++s)
      EXPECT_DOUBLE_EQ(core[size_t(s)], learningRate(c.train, s) * rewarmFactor(c.model, 100, s))
          << "step " << s;
  }
}

}  // namespace
}  // namespace deepladder::trainers
