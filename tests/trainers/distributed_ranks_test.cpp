// Real ranks over Gloo on 127.0.0.1 (trainers/distributed.h): two processes (this binary again,
// see rank_launcher.h) run the collectives and check them against values computed locally; then
// a peer that dies (SIGKILL) or hangs must make the survivor stop with PeerLostError
// (exit kExitPeerLost) within the configured timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "rank_launcher.h"
#include "trainers/distributed.h"

namespace deepladder::trainers::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using testing::childScenario;
using testing::launchRanks;
using testing::waitRanks;

constexpr const char* kScenario = "DEEPLADDER_DIST_SCENARIO";
constexpr const char* kDirectory = "DEEPLADDER_DIST_DIR";
constexpr const char* kChildTest = "DistributedChild.DISABLED_Rank";

// --- the child side ----------------------------------------------------------------------------

[[noreturn]] void finish(int code, const std::string& message = {}) {
  if (!message.empty()) std::cerr << message << std::endl;
  std::fflush(nullptr);
  std::_Exit(code);  // no destructors: a process group whose peer died may block in them
}

void require(bool condition, const std::string& what) {
  if (!condition) finish(1, "rank check failed: " + what);
}

// Rank-dependent tensors whose mean over the ranks is known in closed form (integers, so exact).
std::vector<torch::Tensor> rankTensors(int rank) {
  std::vector<torch::Tensor> tensors;
  for (int64_t n : {3, 1000, 5000, 77}) {
    tensors.push_back(torch::arange(n, torch::kFloat32) * static_cast<float>(n % 7 + 1) +
                      100.0f * static_cast<float>(rank));
  }
  tensors[3] = tensors[3].view({7, 11});
  tensors.push_back(torch::full({5}, 0.25 * rank, torch::kFloat64));
  return tensors;
}

void collectivesScenario() {
  DistributedOptions options;
  options.timeout = std::chrono::seconds(30);
  options.connect_timeout = std::chrono::seconds(60);
  options.bucket_bytes = 4096;  // several buckets, one tensor bigger than a bucket
  auto context = DistributedContext::connect(rendezvousFromEnvironment(), options);
  const int world = context->worldSize();
  require(world == 2 && context->backendName() == "gloo", "two gloo ranks");

  // Bucketed mean: rank r holds base + 100 r, the mean is base + 100 (P-1)/2.
  auto tensors = rankTensors(context->rank());
  context->allReduceMean(tensors);
  const auto base = rankTensors(0);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const double shift = i < 4 ? 100.0 * (world - 1) / 2.0 : 0.25 * (world - 1) / 2.0;
    require(tensors[i].equal(base[i] + shift), "all-reduce mean of tensor " + std::to_string(i));
  }
  // Gradients of parameters: averaged the same way.
  auto w = torch::zeros({4, 3}, torch::requires_grad());
  (w * static_cast<float>(context->rank() + 1)).sum().backward();
  context->averageGradients({w});
  require(w.grad().equal(torch::full({4, 3}, 1.5f)), "averaged gradient");

  require(context->globalMean(context->rank() + 1.0) == 1.5, "global mean of a scalar");

  auto mine = torch::full({300}, static_cast<float>(context->rank()));
  context->broadcastFromRoot({mine});
  require(mine.equal(torch::zeros({300})), "broadcast from rank 0");
  context->requireEqualAcrossRanks({mine, base[1]}, "broadcast tensors");
  bool caught = false;
  try {
    context->requireEqualAcrossRanks({base[0], torch::full({2}, context->rank() * 1e-7f)},
                                     "rank-dependent tensors");
  } catch (const std::runtime_error& e) {
    caught = std::string(e.what()).find("tensor #1") != std::string::npos;
  }
  require(caught, "a differing tensor is found and named");

  // Sharded per-matrix work equals doing it all here, bitwise.
  torch::manual_seed(7);
  std::vector<torch::Tensor> matrices{torch::randn({16, 8}), torch::randn({5, 5}),
                                      torch::randn({32, 16}), torch::randn({3, 9})};
  auto newtonStep = [](const torch::Tensor& x) { return 1.5 * x - 0.5 * x.mm(x.t()).mm(x); };
  std::vector<torch::Tensor> expected;
  for (const auto& m : matrices) expected.push_back(newtonStep(m));
  shardedApply(*context, matrices, newtonStep);
  for (size_t i = 0; i < matrices.size(); ++i)
    require(matrices[i].equal(expected[i]), "sharded result " + std::to_string(i));
  context->barrier();
  finish(0);
}

// Both ranks all-reduce in a loop; rank 1 marks `ready` after a few steps, then either keeps
// going until its parent kills it ("dies") or stops taking part ("hangs").
void faultScenario(const std::string& scenario) {
  DistributedOptions options;
  options.timeout = std::chrono::seconds(2);
  options.connect_timeout = std::chrono::seconds(60);
  auto context = DistributedContext::connect(rendezvousFromEnvironment(), options);
  const std::filesystem::path dir = std::getenv(kDirectory);
  try {
    for (int step = 0; step < 100000; ++step) {
      auto t = torch::ones({1000});
      context->allReduceMean({t});
      if (step == 3 && context->rank() == 1) {
        std::ofstream(dir / "ready") << "ready";
        if (scenario == "hangs") std::this_thread::sleep_for(std::chrono::seconds(60));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  } catch (const PeerLostError& e) {
    finish(kExitPeerLost, std::string("rank stopped: ") + e.what());
  }
  finish(1, "the loop ended without noticing the lost peer");
}

TEST(DistributedChild, DISABLED_Rank) {
  const auto scenario = childScenario(kScenario);
  if (!scenario) GTEST_SKIP() << "only runs as a rank started by the tests below";
  torch::set_num_threads(1);
  if (*scenario == "collectives") collectivesScenario();
  faultScenario(*scenario);
}

// --- the parent side -------------------------------------------------------------------------

TEST(DistributedRanks, GlooCollectivesOverTwoProcesses) {
  auto ranks = launchRanks(2, kChildTest, {{kScenario, "collectives"}});
  ASSERT_TRUE(waitRanks(ranks, std::chrono::seconds(120))) << "ranks did not finish";
  for (const auto& r : ranks) {
    ASSERT_TRUE(r.exit_code.has_value()) << "rank " << r.rank << " killed by signal";
    EXPECT_EQ(*r.exit_code, 0) << "rank " << r.rank << " failed a check (see stderr)";
  }
}

// Starts the fault scenario, waits for rank 1's mark, optionally kills it, and returns how long
// rank 0 took after the mark to stop, checking that it stopped as PeerLost.
double survivorStopSeconds(const std::string& scenario) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("deepladder-dist-" + scenario + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto ranks = launchRanks(2, kChildTest, {{kScenario, scenario}, {kDirectory, dir.string()}});
  const auto give_up = Clock::now() + std::chrono::seconds(90);
  while (!std::filesystem::exists(dir / "ready") && Clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto mark = Clock::now();
  EXPECT_TRUE(std::filesystem::exists(dir / "ready")) << "rank 1 never got going";
  if (scenario == "dies") ::kill(ranks[1].pid, SIGKILL);
  std::vector<testing::RankProcess> survivor{ranks[0]};
  const bool ended = waitRanks(survivor, std::chrono::seconds(30));
  ::kill(ranks[1].pid, SIGKILL);
  std::vector<testing::RankProcess> peer{ranks[1]};
  waitRanks(peer, std::chrono::seconds(10));
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(ended) << "rank 0 did not stop within 30 s of losing its peer";
  if (!ended) return 1e9;
  EXPECT_EQ(survivor[0].exit_code.value_or(-1), kExitPeerLost);
  return std::chrono::duration<double>(survivor[0].ended - mark).count();
}

TEST(DistributedRanks, KilledPeerStopsTheOtherWithinTheTimeout) {
  const double seconds = survivorStopSeconds("dies");
  std::cout << "[ figure ] survivor stopped " << seconds << " s after its peer was killed\n";
  EXPECT_LT(seconds, 2.0 + 3.0);  // timeout 2 s, plus slack for a loaded machine
}

TEST(DistributedRanks, HungPeerStopsTheOtherWithinTheTimeout) {
  const double seconds = survivorStopSeconds("hangs");
  std::cout << "[ figure ] survivor stopped " << seconds
            << " s after its peer hung (timeout 2 s)\n";
  EXPECT_GT(seconds, 1.0);  // it waited for the timeout rather than failing at once
  EXPECT_LT(seconds, 2.0 + 3.0);
}

}  // namespace
}  // namespace deepladder::trainers::distributed
