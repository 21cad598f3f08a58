// Positive controls of the serial task: tasks the existing squaring trainer must solve, so a
// failure to learn squaring cannot be blamed on the data path (tokens, layouts, loss positions,
// exact-match scoring). Both run the real training loop (runSquaringTrainingOn) for a few seconds:
// - the T = 0 copy task: answer = x. Trained on 200 of E1's 288 units, it must answer the other
//   88 (held out) right: a rule, not a lookup;
// - a fully observed small table: N = 35, every unit x at T = 1, 2, 3 in training; scored through
//   the evaluation path it must be 100% right (train, test and OOD sets are that table).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <map>
#include <variant>

#include "core/squaring/dataset.h"
#include "core/squaring/python_random.h"
#include "trainers/squaring/squaring_trainer.h"

namespace deepladder::trainers::squaring {
namespace {

namespace sq = ::deepladder::squaring;

RunConfig controlRun(int64_t steps) {
  RunConfig c;
  c.task = Task::squaring;
  c.model.vocab_size = 17;
  c.model.d_model = 64;
  c.model.n_head = 4;
  c.model.n_layer = 2;
  c.model.seq_len = 13;
  c.model.positions = Positions::learned;
  c.model.attention = AttentionMask::bidirectional;
  c.model.arch = Arch::vanilla;
  c.train.steps = steps;
  c.train.batch_size = 64;
  c.train.lr = 3e-3;
  c.train.warmup_steps = 20;
  c.train.eval_every = steps;
  c.train.threads = 1;
  c.train.seed = 1;
  c.squaring.tier = "E1";
  return c;
}

// The last value of each metric key.
std::map<std::string, double> train(const RunConfig& config, const sq::TierDataset& data,
                                    const std::string& name) {
  std::map<std::string, double> last;
  TrainerOptions options;
  options.run_id = name;
  options.workdir =
      (std::filesystem::temp_directory_path() / ("deepladder-sqcontrol-" + name)).string();
  std::filesystem::remove_all(options.workdir);
  runSquaringTrainingOn(
      config, options,
      [&](const protocol::Message& m) {
        if (auto* metric = std::get_if<protocol::Metric>(&m))
          for (const auto& [k, v] : metric->values) last[k] = v;
      },
      data);
  std::filesystem::remove_all(options.workdir);
  return last;
}

}  // namespace

TEST(SquaringPositiveControl, CopyTaskAtTZeroGeneralizesToHeldOutX) {
  const sq::Semiprime s = sq::semiprimeFromFactors(17, 19);
  auto units = sq::allUnitExamples(s, 0);  // answer = x
  sq::PythonRandom rng(uint64_t{7});
  rng.shuffle(units);
  sq::TierDataset data;
  data.train.assign(units.begin(), units.begin() + 200);
  data.test.assign(units.begin() + 200, units.end());
  data.ood_t = data.test;
  data.depth_seen = data.test;
  data.depth_ood_n = sq::allUnitExamples(sq::semiprimeFromFactors(29, 31), 0);
  data.depth_ood_n.resize(64);
  const auto m = train(controlRun(120), data, "copy");
  EXPECT_GE(m.at("train/exact"), 0.95);
  EXPECT_GE(m.at("test/exact"), 0.9) << "88 x never seen in training";
}

TEST(SquaringPositiveControl, FullyObservedSmallTableIsLearnedAndScoredRight) {
  const sq::Semiprime s = sq::semiprimeFromFactors(5, 7);  // N = 35, 24 units
  sq::TierDataset data;
  for (int64_t t : {1, 2, 3})
    for (const auto& e : sq::allUnitExamples(s, t)) data.train.push_back(e);
  data.test = data.ood_t = data.depth_seen = data.depth_ood_n = data.train;
  const auto m = train(controlRun(250), data, "table");
  EXPECT_DOUBLE_EQ(m.at("train/exact"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("test/exact"), 1.0);
}

}  // namespace deepladder::trainers::squaring
