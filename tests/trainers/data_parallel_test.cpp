// Data-parallel training (trainers/data_parallel.h hooks in the training loop) against one rank:
// the same tiny run (tiny_run.h, seed 1) trained by 2 ranks over Gloo on 127.0.0.1 with half the
// batch each, and by 1 rank with the whole batch, must log the same train-loss curve to float
// tolerance for 50 steps, for vanilla and for untied_grow across its growth step. Both runs are
// this binary started again (rank_launcher.h) so they use the same thread settings; rank 0 writes
// the curve and its communication time to a file. Also prints the all-reduce time per step and the
// 2-rank vs 1-rank throughput.
#include "trainers/data_parallel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "core/architecture.h"
#include "rank_launcher.h"
#include "tiny_run.h"

namespace deepladder::trainers {
namespace {

constexpr const char* kWorkspace = "DEEPLADDER_DP_WORKSPACE";
constexpr const char* kArch = "DEEPLADDER_DP_ARCH";
constexpr const char* kOutput = "DEEPLADDER_DP_OUTPUT";
constexpr const char* kRunDir = "DEEPLADDER_DP_RUNDIR";           // shared by the ranks of a run
constexpr const char* kResume = "DEEPLADDER_DP_RESUME";           // "1": resume from the run dir
constexpr const char* kRank1Quits = "DEEPLADDER_DP_RANK1_QUITS";  // rank 1 dies after N steps
constexpr const char* kChildTest = "DataParallelChild.DISABLED_Rank";
constexpr int64_t kSteps = 50;

RunConfig equivalenceConfig(const std::filesystem::path& workspace, const std::string& arch) {
  RunConfig c = testing::tinyConfig(workspace);
  c.train.steps = kSteps;
  c.train.eval_every = kSteps;
  c.train.checkpoint_every = 0;  // the last step only, unless the test asks for more
  if (const char* every = std::getenv("DEEPLADDER_DP_CHECKPOINT_EVERY")) {
    c.train.checkpoint_every = std::stoll(every);
    c.train.keep_checkpoints = 10;
  }
  c.train.log_every = 1;
  c.train.threads = 1;
  if (const char* micro = std::getenv("DEEPLADDER_DP_MICRO_BATCH"))
    c.train.micro_batch = std::stoll(micro);
  if (std::getenv("DEEPLADDER_DP_MEDIUM")) {  // the throughput figures: d 128, 4 layers, T 128
    c.model.d_model = 128;
    c.model.n_layer = 4;
    c.model.n_head = 4;
    c.model.seq_len = 128;
    c.train.batch_size = 16;
    c.train.steps = 30;
    c.train.eval_every = 30;
    c.train.threads = std::stoll(std::getenv("DEEPLADDER_DP_MEDIUM"));
  }
  const std::string muon_suffix = "+muon";  // the recipe's optimizer and model options
  const bool muon =
      arch.size() > muon_suffix.size() &&
      arch.compare(arch.size() - muon_suffix.size(), muon_suffix.size(), muon_suffix) == 0;
  const std::string arm = muon ? arch.substr(0, arch.size() - muon_suffix.size()) : arch;
  if (muon) {
    c.model.mlp = MlpKind::swiglu;
    c.model.tie_embeddings = false;
    c.model.norm_gain = false;
    c.model.qk_norm = true;
    c.model.embed_norm = true;
    c.model.residual_scale = 0.5;
    c.model.init = InitScheme::recipe;
    c.model.init_embed_std = 0.1;
    c.model.init_uniform = 0.35;
    c.train.optimizer = OptimizerKind::muon;
    c.train.lr = 0.02;
    c.train.embed_lr = 0.02;
    c.train.head_lr = 0.004;
    c.train.cautious_weight_decay = true;
    c.train.grad_clip = 0;
    c.train.schedule = Schedule::wsd;
    c.train.decay_fraction = 0.5;
  }
  if (arm != "vanilla") {  // a growing arm: three layers, crossover half-way (step 25)
    c.model.n_layer = 3;
    applyArmPreset(arm, c.model);
    c.model.grow_fraction = 0.5;
    c.model.rewarm_steps = 3;
  }
  return c;
}

// One rank of a run: trains, and rank 0 writes "step loss" lines, then "timing comm_s wall_s"
// and "resumed_from step". Exit status: 0 trained, 75 lost its peer, 3 quit on purpose, 1 other.
TEST(DataParallelChild, DISABLED_Rank) {
  const auto workspace = testing::childScenario(kWorkspace);
  if (!workspace) GTEST_SKIP() << "only runs as a rank started by the tests below";
  const RunConfig config = equivalenceConfig(*workspace, std::getenv(kArch));
  TrainerOptions options;
  options.workdir = std::getenv(kRunDir);
  options.resume = testing::childScenario(kResume).has_value();
  const bool is_rank1 = std::string(std::getenv("RANK")) == "1";
  if (is_rank1 && testing::childScenario(kRank1Quits))
    options.max_steps = std::stoll(std::getenv(kRank1Quits));
  std::map<int64_t, double> losses;
  double comm_s = 0;
  double wall_s = 0;
  int64_t resumed_from = -1;
  try {
    runTraining(config, options, [&](const protocol::Message& message) {
      if (const auto* h = std::get_if<protocol::Hello>(&message)) resumed_from = h->resumed_from;
      if (const auto* m = std::get_if<protocol::Metric>(&message)) {
        wall_s = m->wall_s;
        for (const auto& [key, value] : m->values) {
          if (key == "train/loss") losses[m->step] = value;
          if (key == "comm_s") comm_s = value;
        }
      }
    });
    if (options.max_steps >= 0) std::_Exit(3);  // leaves without a word, as a crash would
  } catch (const distributed::PeerLostError& e) {
    std::cerr << "rank " << std::getenv("RANK") << ": " << e.what() << std::endl;
    std::fflush(nullptr);
    std::_Exit(distributed::kExitPeerLost);
  } catch (const std::exception& e) {
    std::cerr << "rank " << std::getenv("RANK") << ": " << e.what() << std::endl;
    std::fflush(nullptr);
    std::_Exit(1);
  }
  if (std::string(std::getenv("RANK")) == "0") {
    std::ofstream out(std::getenv(kOutput));
    out.precision(17);
    for (const auto& [step, loss] : losses) out << step << " " << loss << "\n";
    out << "timing " << comm_s << " " << wall_s << "\n";
    out << "resumed_from " << resumed_from << "\n";
  }
  std::fflush(nullptr);
  std::_Exit(0);  // skip the process group's teardown
}

struct Curve {
  std::map<int64_t, double> loss;
  double comm_s = 0;
  double wall_s = 0;
  int64_t resumed_from = -1;
  std::vector<int> exit_codes;  // by rank; -1 when killed
};

// Trains `world` ranks in `run` (a directory name under the workspace) and reads rank 0's curve.
Curve runRanks(int world, const std::filesystem::path& workspace, const std::string& arch,
               const std::string& run, std::map<std::string, std::string> extra = {}) {
  const auto output = workspace / (run + ".curve");
  std::filesystem::remove(output);
  extra[kWorkspace] = workspace.string();
  extra[kArch] = arch;
  extra[kOutput] = output.string();
  extra[kRunDir] = (workspace / run).string();
  auto ranks = testing::launchRanks(world, kChildTest, extra);
  EXPECT_TRUE(testing::waitRanks(ranks, std::chrono::seconds(240))) << "ranks did not finish";
  Curve curve;
  for (const auto& r : ranks) curve.exit_codes.push_back(r.exit_code.value_or(-1));
  std::ifstream in(output);
  std::string first;
  while (in >> first) {
    if (first == "timing") {
      in >> curve.comm_s >> curve.wall_s;
      continue;
    }
    if (first == "resumed_from") {
      in >> curve.resumed_from;
      continue;
    }
    in >> curve.loss[std::stoll(first)];
  }
  return curve;
}

// `tolerance`: relative loss difference allowed between 1 and 2 ranks (float rounding of the
// averaged gradient; Muon's bf16 orthogonalization turns it into a larger one).
void expectSameCurves(const std::string& arch, double tolerance = 1e-4) {
  const auto workspace = testing::makeWorkspace("dp-" + arch);
  const Curve one = runRanks(1, workspace, arch, "one");
  const Curve two = runRanks(2, workspace, arch, "two");
  EXPECT_EQ(one.exit_codes, std::vector<int>({0}));
  EXPECT_EQ(two.exit_codes, std::vector<int>({0, 0}));
  EXPECT_GT(two.comm_s, 0.0) << "the two ranks never communicated: are the hooks in the loop?";
  ASSERT_EQ(one.loss.size(), static_cast<size_t>(kSteps));
  ASSERT_EQ(two.loss.size(), static_cast<size_t>(kSteps));
  double worst = 0;
  for (const auto& [step, loss] : one.loss) {
    const double other = two.loss.at(step);
    worst = std::max(worst, std::abs(other - loss));
    EXPECT_NEAR(other, loss, tolerance * std::max(1.0, std::abs(loss))) << "step " << step;
  }
  EXPECT_LT(one.loss.rbegin()->second, one.loss.begin()->second) << "the run did not learn";
  std::cout << "[ figure ] " << arch << ": 2 ranks x B/2 vs 1 rank x B, " << kSteps
            << " steps: max |loss difference| " << worst << " (loss " << one.loss.begin()->second
            << " -> " << one.loss.rbegin()->second << ")\n";
  std::cout << "[ figure ] " << arch << ": wall " << one.wall_s << " s (1 rank) vs " << two.wall_s
            << " s (2 ranks), speed-up " << one.wall_s / two.wall_s << "x; all-reduce "
            << 1e3 * two.comm_s / kSteps << " ms/step on rank 0 (" << 100 * two.comm_s / two.wall_s
            << "% of its wall time)\n";
  std::filesystem::remove_all(workspace);
}

TEST(DataParallel, TwoRanksWithHalfTheBatchMatchOneRankVanilla) {
  expectSameCurves("vanilla");
}

TEST(DataParallel, TwoRanksWithHalfTheBatchMatchOneRankAcrossGrowth) {
  expectSameCurves("untied_grow");
}

// The recipe (Muon + AdamW groups, growth with fresh state for the copied cores): the ranks
// stay replicas (checked at start and growth) and follow the one-rank curve up to the rounding
// that bf16 Polar Express adds. How much that is depends on the CPU's bf16 GEMM kernels: 2.4e-4
// at loss ~2 over 50 steps on one machine, up to 2.2e-3 relative (0.0088 at loss 3.99, step 12)
// on another, where the 424ca35 tree failed the old 2e-3 bound as well; 5e-3 holds both, and a
// rank that stopped communicating or a growth step applied differently is off by far more.
TEST(DataParallel, TwoRanksWithHalfTheBatchMatchOneRankWithMuonAcrossGrowth) {
  expectSameCurves("untied_grow+muon", /*tolerance=*/5e-3);
}

// name -> parameter in the newest checkpoint of a run directory.
std::map<std::string, torch::Tensor> newestCheckpointParameters(const std::filesystem::path& dir) {
  std::filesystem::path newest;
  int64_t newest_step = -1;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("ckpt-", 0) != 0 || entry.path().extension() != ".pt") continue;
    const int64_t step = std::stoll(name.substr(5));
    if (step > newest_step) {
      newest_step = step;
      newest = entry.path();
    }
  }
  std::map<std::string, torch::Tensor> out;
  if (newest.empty()) {
    ADD_FAILURE() << "no checkpoint in " << dir;
    return out;
  }
  torch::serialize::InputArchive archive;
  archive.load_from(newest.string());
  for (const std::string& key : archive.keys()) {
    if (key.rfind("model.", 0) != 0) continue;
    torch::Tensor t;
    archive.read(key, t, /*is_buffer=*/true);
    out[key] = t;
  }
  return out;
}

// 2 ranks x B/2 rows in micro-batches of 1 (4 forwards per rank and step) against 1 rank x B in
// one forward, 50 AdamW steps with growth at 25: the same curve and the same final parameters up
// to the rounding of the two summation orders (all-reduce mean and accumulation).
TEST(DataParallel, TwoRanksWithMicroBatchesMatchOneRankAcrossGrowth) {
  const auto workspace = testing::makeWorkspace("dp-micro");
  const Curve one = runRanks(1, workspace, "untied_grow", "one");
  const Curve two =
      runRanks(2, workspace, "untied_grow", "two", {{"DEEPLADDER_DP_MICRO_BATCH", "1"}});
  ASSERT_EQ(one.exit_codes, std::vector<int>({0}));
  ASSERT_EQ(two.exit_codes, std::vector<int>({0, 0}));
  ASSERT_EQ(one.loss.size(), two.loss.size());
  for (const auto& [step, loss] : one.loss)
    EXPECT_NEAR(two.loss.at(step), loss, 1e-4 * loss) << "step " << step;
  const auto a = newestCheckpointParameters(workspace / "one");
  const auto b = newestCheckpointParameters(workspace / "two");
  ASSERT_EQ(a.size(), b.size());
  double diff = 0, norm = 0, worst = 0;
  for (const auto& [name, t] : a) {
    const torch::Tensor d = t - b.at(name);
    diff += d.pow(2).sum().item<double>();
    norm += t.pow(2).sum().item<double>();
    worst = std::max(worst, d.abs().max().item<double>() / t.abs().max().item<double>());
  }
  const double l2 = std::sqrt(diff / norm);
  std::cout << "[ figure ] 2 ranks x micro-batches of 1 vs 1 rank x B, " << kSteps
            << " steps with growth: parameters differ by " << l2 << " (||a - b|| / ||a||), max "
            << worst << " (per tensor max |a - b| / max |a|)\n";
  EXPECT_LE(l2, 1e-6);
  std::filesystem::remove_all(workspace);
}

}  // namespace
}  // namespace deepladder::trainers

namespace deepladder::trainers {
namespace {

// Rank 1 dies after 30 of 50 steps: rank 0 stops as PeerLost (no Done) after its checkpoint at
// step 30; relaunched with --resume, both ranks continue from it and end on the same curve as a
// run that was never interrupted.
TEST(DataParallel, RunWithAKilledRankResumesToTheUninterruptedCurve) {
  const auto workspace = testing::makeWorkspace("dp-resume");
  std::map<std::string, std::string> every_ten{{"DEEPLADDER_DP_CHECKPOINT_EVERY", "10"}};
  const Curve whole = runRanks(2, workspace, "vanilla", "whole", every_ten);
  ASSERT_EQ(whole.exit_codes, std::vector<int>({0, 0}));

  auto crash = every_ten;
  crash[kRank1Quits] = "30";
  const Curve broken = runRanks(2, workspace, "vanilla", "broken", crash);
  EXPECT_EQ(broken.exit_codes, std::vector<int>({distributed::kExitPeerLost, 3}));
  EXPECT_TRUE(broken.loss.empty()) << "rank 0 wrote a curve, so it did not notice the loss";

  auto resume = every_ten;
  resume[kResume] = "1";
  const Curve resumed = runRanks(2, workspace, "vanilla", "broken", resume);
  ASSERT_EQ(resumed.exit_codes, std::vector<int>({0, 0}));
  EXPECT_EQ(resumed.resumed_from, 30);
  ASSERT_EQ(resumed.loss.size(), 20u);
  for (const auto& [step, loss] : resumed.loss)
    EXPECT_NEAR(loss, whole.loss.at(step), 1e-6) << "step " << step;
  std::filesystem::remove_all(workspace);
}

// Not a check: throughput of a d128 x 4 model (B 16, T 128, 30 steps) as 1 rank with 1 and 2
// threads and as 2 ranks with 1 thread each. Run by hand:
//   trainers_tests --gtest_also_run_disabled_tests --gtest_filter='*DISABLED_ThroughputFigures'
TEST(DataParallel, DISABLED_ThroughputFigures) {
  const auto workspace = testing::makeWorkspace("dp-throughput");
  const Curve one = runRanks(1, workspace, "vanilla", "one1", {{"DEEPLADDER_DP_MEDIUM", "1"}});
  const Curve one2 = runRanks(1, workspace, "vanilla", "one2", {{"DEEPLADDER_DP_MEDIUM", "2"}});
  const Curve two = runRanks(2, workspace, "vanilla", "two", {{"DEEPLADDER_DP_MEDIUM", "1"}});
  const double steps = 30;
  std::cout << "[ figure ] d128x4 B16 T128, 30 steps: 1 rank x 1 thread " << one.wall_s
            << " s, 1 rank x 2 threads " << one2.wall_s << " s, 2 ranks x 1 thread " << two.wall_s
            << " s; 2 ranks vs 1 rank x 1 thread " << one.wall_s / two.wall_s
            << "x, vs 1 rank x 2 threads " << one2.wall_s / two.wall_s << "x; all-reduce "
            << 1e3 * two.comm_s / steps << " ms/step (" << 100 * two.comm_s / two.wall_s
            << "% of rank 0's wall time)\n";
  std::filesystem::remove_all(workspace);
}

}  // namespace
}  // namespace deepladder::trainers
