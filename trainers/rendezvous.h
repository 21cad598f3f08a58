// Where a data-parallel worker sits in its run, from the launcher's environment (torchrun-style
// RANK / WORLD_SIZE / MASTER_ADDR, or Slurm's srun variables), and the rows of a global batch
// each rank trains on. No LibTorch: the worker reads it before any process group exists.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace deepladder::trainers::distributed {

// Where this process sits in the run and how to reach rank 0's store.
struct RendezvousInfo {
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;             // picks the GPU on a node (cuda:<local_rank>)
  std::string source = "single";  // "env" (MASTER_ADDR/RANK/...), "slurm" or "single"
};

using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Reads, in order of precedence:
//   RANK + WORLD_SIZE (+ MASTER_ADDR, MASTER_PORT default 29500, LOCAL_RANK default RANK);
//   SLURM_PROCID + SLURM_NTASKS (+ SLURM_LOCALID; MASTER_ADDR, else SLURM_LAUNCH_NODE_IPADDR,
//   else the first host of SLURM_JOB_NODELIST / SLURM_NODELIST; MASTER_PORT, else
//   29500 + SLURM_JOB_ID % 10000 so concurrent jobs on a node do not collide);
//   nothing -> a world of one. Malformed values throw UserError naming the variable.
RendezvousInfo rendezvousFromEnvironment(const EnvironmentLookup& lookup);
RendezvousInfo rendezvousFromEnvironment();  // the process environment

// The CUDA device index rank `local_rank` trains on when `visible` GPUs are visible to it:
// local_rank when that many are visible (torchrun style: every rank sees all the node's GPUs),
// else 0 (the launcher pinned each rank to its own GPUs: deepladder's local backend, srun with
// --gpus-per-task).
int deviceIndexForRank(int local_rank, int visible);

// First host of a Slurm node list: "gpu[03-04,07],cpu1" -> "gpu03".
std::string firstSlurmHost(const std::string& nodelist);

// Rows [begin, begin + count) of a global batch of `global_rows` that rank `rank` of `world`
// trains on. Throws UserError when the batch does not split evenly (equal slices keep the mean
// of the per-rank mean losses equal to the mean over the whole batch).
struct RowSlice {
  int64_t begin = 0;
  int64_t count = 0;
};
RowSlice rowsForRank(int64_t global_rows, int rank, int world_size);

}  // namespace deepladder::trainers::distributed
