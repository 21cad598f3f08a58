// Data parallelism over PyTorch's c10d (inside LibTorch; no communication code of our own):
// rendezvous from the launcher's variables (torchrun style or Slurm's srun), a TCPStore and a
// process group (Gloo on the CPU, NCCL on CUDA when built with DEEPLADDER_WITH_NCCL), and the
// few collectives a data-parallel trainer needs: bucketed gradient averaging, a global mean of a
// scalar, broadcast and equality checks of parameters, and sharded per-matrix work (Muon).
//
// A world of one needs no process group: every collective is then a no-op, so the trainer calls
// the same hooks whether it runs alone or as one of P ranks.
//
// Faults: every collective and store operation carries the configured timeout. When a peer dies
// (its sockets close) or hangs (the timeout passes), the collective throws PeerLostError; the
// worker then exits with kExitPeerLost and no Done, the run counts as crashed, and the scheduler
// resumes it from its last checkpoint.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "trainers/rendezvous.h"

namespace deepladder::trainers::distributed {

// Exit status of a worker whose peer rank died or hung (EX_TEMPFAIL: try again).
inline constexpr int kExitPeerLost = 75;

struct DistributedOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};           // every collective
  std::chrono::milliseconds connect_timeout{std::chrono::minutes(10)};  // all ranks showing up
  std::string backend = "auto";     // "gloo", "nccl", or "auto" (nccl for a CUDA device)
  std::string device = "cpu";       // where the training tensors live
  int64_t bucket_bytes = 25 << 20;  // gradient buckets of about this size
};

// A peer rank died or did not answer within the timeout.
class PeerLostError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DistributedContext {
 public:
  // Joins the run: rank 0 hosts the TCPStore, everyone builds the process group. A world of one
  // returns at once without any network. Throws PeerLostError when the others do not show up
  // within the timeout.
  static std::unique_ptr<DistributedContext> connect(const RendezvousInfo& where,
                                                     const DistributedOptions& options);
  ~DistributedContext();
  DistributedContext(const DistributedContext&) = delete;
  DistributedContext& operator=(const DistributedContext&) = delete;

  int rank() const { return where_.rank; }
  int worldSize() const { return where_.world_size; }
  int localRank() const { return where_.local_rank; }
  bool isRoot() const { return where_.rank == 0; }
  std::string backendName() const;

  // In place: every tensor becomes the mean of its values over the ranks. Tensors are packed in
  // order into buckets of about bucket_bytes (same dtype and device), all buckets go out at once.
  void allReduceMean(const std::vector<torch::Tensor>& tensors);
  // allReduceMean over the defined .grad() of `parameters` (call after backward, before clipping).
  void averageGradients(const std::vector<torch::Tensor>& parameters);
  // Mean of a scalar over the ranks (the logged train loss).
  double globalMean(double value);
  // In place: every rank ends with rank 0's values.
  void broadcastFromRoot(const std::vector<torch::Tensor>& tensors);
  // Bitwise fingerprint of `tensors` compared across ranks; throws std::runtime_error naming
  // `what` and the first differing tensor when any rank holds other values.
  void requireEqualAcrossRanks(const std::vector<torch::Tensor>& tensors, const std::string& what);
  void barrier();

  // Seconds spent inside collectives since connect (for the overhead figure).
  double communicationSeconds() const { return communication_seconds_; }

  // Implementation detail (defined in distributed.cpp): the store and process group.
  struct Group;

 private:
  DistributedContext(RendezvousInfo where, DistributedOptions options);
  void allGatherFlat(const torch::Tensor& local, std::vector<torch::Tensor>& gathered);
  friend void shardedApply(DistributedContext&, const std::vector<torch::Tensor>&,
                           const std::function<torch::Tensor(const torch::Tensor&)>&);

  RendezvousInfo where_;
  DistributedOptions options_;
  std::unique_ptr<Group> group_;  // null for a world of one
  double communication_seconds_ = 0;
};

// Which rank computes item i of a list with these element counts: largest first to the least
// loaded rank (ties to the lower rank), the same on every rank.
std::vector<int> shardOwners(const std::vector<int64_t>& numels, int world_size);

// Replaces every tensor in place by fn(tensor) (same shape and dtype), each rank computing only
// its share (shardOwners) and all-gathering the results: the outcome equals applying fn to every
// tensor on one rank, bitwise, when fn is deterministic. For Muon's per-matrix orthogonalization.
void shardedApply(DistributedContext& context, const std::vector<torch::Tensor>& tensors,
                  const std::function<torch::Tensor(const torch::Tensor&)>& fn);

}  // namespace deepladder::trainers::distributed
