// Data parallelism over c10d (trainers/distributed.h): rendezvous parsing from torchrun-style and
// Slurm variables, batch slices, shard owners, and real multi-process runs over Gloo on
// 127.0.0.1. The ranks are this very test binary started again (posix_spawn, not fork: LibTorch's
// thread pools do not survive a fork) running DistributedChild.DISABLED_Rank with the scenario in
// DEEPLADDER_DIST_SCENARIO; the parent checks their exit status and timing.
#include "trainers/distributed.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "core/errors.h"

extern char** environ;

namespace deepladder::trainers::distributed {
namespace {

using Clock = std::chrono::steady_clock;

EnvironmentLookup lookupIn(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

// --- rendezvous parsing ----------------------------------------------------------------------

TEST(Rendezvous, TorchrunVariables) {
  const auto info = rendezvousFromEnvironment(lookupIn({{"RANK", "3"},
                                                        {"WORLD_SIZE", "4"},
                                                        {"LOCAL_RANK", "1"},
                                                        {"MASTER_ADDR", "10.0.0.5"},
                                                        {"MASTER_PORT", "1234"}}));
  EXPECT_EQ(info.source, "env");
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.world_size, 4);
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_EQ(info.master_addr, "10.0.0.5");
  EXPECT_EQ(info.master_port, 1234);
  // LOCAL_RANK defaults to RANK, MASTER_PORT to 29500.
  const auto defaults = rendezvousFromEnvironment(
      lookupIn({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}));
  EXPECT_EQ(defaults.local_rank, 1);
  EXPECT_EQ(defaults.master_port, 29500);
}

TEST(Rendezvous, TorchrunVariablesRejectNonsense) {
  EXPECT_THROW(rendezvousFromEnvironment(lookupIn({{"RANK", "0"}, {"WORLD_SIZE", "2"}})),
               UserError);  // no MASTER_ADDR
  EXPECT_THROW(rendezvousFromEnvironment(
                   lookupIn({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}})),
               UserError);  // rank out of range
  EXPECT_THROW(rendezvousFromEnvironment(lookupIn({{"RANK", "0"}})), UserError);
  EXPECT_THROW(rendezvousFromEnvironment(
                   lookupIn({{"RANK", "x"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}})),
               UserError);
  EXPECT_THROW(
      rendezvousFromEnvironment(lookupIn(
          {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "0"}})),
      UserError);
}

TEST(Rendezvous, SlurmVariables) {
  const auto info = rendezvousFromEnvironment(lookupIn({{"SLURM_PROCID", "5"},
                                                        {"SLURM_NTASKS", "8"},
                                                        {"SLURM_LOCALID", "1"},
                                                        {"SLURM_LAUNCH_NODE_IPADDR", "10.1.2.3"},
                                                        {"SLURM_JOB_NODELIST", "gpu[03-04]"},
                                                        {"SLURM_JOB_ID", "12345"}}));
  EXPECT_EQ(info.source, "slurm");
  EXPECT_EQ(info.rank, 5);
  EXPECT_EQ(info.world_size, 8);
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_EQ(info.master_addr, "10.1.2.3");
  EXPECT_EQ(info.master_port, 29500 + 2345);
  // Without the launch node: the first host of the node list; MASTER_* win when set.
  const auto from_list = rendezvousFromEnvironment(lookupIn(
      {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_NODELIST", "gpu[03-04,07],cpu1"}}));
  EXPECT_EQ(from_list.master_addr, "gpu03");
  EXPECT_EQ(from_list.local_rank, 0);
  const auto explicit_master = rendezvousFromEnvironment(lookupIn({{"SLURM_PROCID", "0"},
                                                                   {"SLURM_NTASKS", "2"},
                                                                   {"SLURM_NODELIST", "n1"},
                                                                   {"MASTER_ADDR", "head"},
                                                                   {"MASTER_PORT", "4000"}}));
  EXPECT_EQ(explicit_master.master_addr, "head");
  EXPECT_EQ(explicit_master.master_port, 4000);
  EXPECT_THROW(rendezvousFromEnvironment(lookupIn({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}})),
               UserError);  // nowhere to find rank 0
}

TEST(Rendezvous, TorchrunVariablesTakePrecedenceOverSlurm) {
  const auto info = rendezvousFromEnvironment(lookupIn({{"RANK", "1"},
                                                        {"WORLD_SIZE", "2"},
                                                        {"MASTER_ADDR", "a"},
                                                        {"SLURM_PROCID", "0"},
                                                        {"SLURM_NTASKS", "1"}}));
  EXPECT_EQ(info.source, "env");
  EXPECT_EQ(info.rank, 1);
}

TEST(Rendezvous, NothingSetIsAWorldOfOne) {
  const auto info = rendezvousFromEnvironment(lookupIn({}));
  EXPECT_EQ(info.source, "single");
  EXPECT_EQ(info.world_size, 1);
  EXPECT_EQ(info.rank, 0);
}

TEST(Rendezvous, FirstSlurmHost) {
  EXPECT_EQ(firstSlurmHost("node7"), "node7");
  EXPECT_EQ(firstSlurmHost("a-b1,c2"), "a-b1");
  EXPECT_EQ(firstSlurmHost("nid[001-004]"), "nid001");
  EXPECT_EQ(firstSlurmHost("gpu[07,03-04],cpu1"), "gpu07");
  EXPECT_EQ(firstSlurmHost("rack[1-2]-n[05-06]"), "rack1-n05");
  EXPECT_THROW(firstSlurmHost("gpu[01"), UserError);
}

TEST(Rendezvous, EachRankTrainsOnItsOwnGpu) {
  EXPECT_EQ(deviceIndexForRank(3, 8), 3);  // torchrun: every rank sees the node's 8 GPUs
  EXPECT_EQ(deviceIndexForRank(3, 1), 0);  // pinned (local backend, srun --gpus-per-task)
  EXPECT_EQ(deviceIndexForRank(1, 2), 1);  // pinned to two GPUs: still one of its own
  EXPECT_EQ(deviceIndexForRank(0, 0), 0);
}

// --- slices and shards -------------------------------------------------------------------------

TEST(BatchSlice, RanksTakeDisjointEqualRows) {
  EXPECT_EQ(rowsForRank(8, 0, 2).begin, 0);
  EXPECT_EQ(rowsForRank(8, 1, 2).begin, 4);
  EXPECT_EQ(rowsForRank(8, 1, 2).count, 4);
  EXPECT_EQ(rowsForRank(8, 0, 1).count, 8);
  EXPECT_THROW(rowsForRank(6, 0, 4), UserError);
}

TEST(ShardOwners, BalancesLargestFirst) {
  const auto owners = shardOwners({100, 10, 60, 50}, 2);
  ASSERT_EQ(owners.size(), 4u);
  EXPECT_EQ(owners[0], 0);  // 100 -> rank 0
  EXPECT_EQ(owners[2], 1);  // 60 -> rank 1
  EXPECT_EQ(owners[3], 1);  // 50 -> rank 1 (load 60 < 100)
  EXPECT_EQ(owners[1], 0);  // 10 -> rank 0 (load 100 < 110)
}

TEST(SingleRank, CollectivesAreNoOps) {
  auto context = DistributedContext::connect(RendezvousInfo{}, DistributedOptions{});
  EXPECT_EQ(context->worldSize(), 1);
  EXPECT_EQ(context->backendName(), "single");
  auto t = torch::arange(6, torch::kFloat32);
  context->allReduceMean({t});
  EXPECT_TRUE(t.equal(torch::arange(6, torch::kFloat32)));
  EXPECT_DOUBLE_EQ(context->globalMean(2.5), 2.5);
  shardedApply(*context, {t}, [](const torch::Tensor& x) { return x * 2; });
  EXPECT_TRUE(t.equal(torch::arange(6, torch::kFloat32) * 2));
}

}  // namespace
}  // namespace deepladder::trainers::distributed
