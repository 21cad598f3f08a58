// The hooks a training loop needs to run as one of P data-parallel ranks, over
// distributed.h. Every hook is a no-op (or the identity) in a world of one, so the loop calls them
// unconditionally:
//
//   DataParallel dp = DataParallel::join(train.device);   // rendezvous from the environment
//   device          = dp.deviceFor(train.device);          // cuda:<local_rank> on a GPU node
//   emit            = dp.rootOnly(emit);                   // rank 0 alone speaks the protocol
//   dp.broadcastParameters(params)                         // fresh start: rank 0's init
//   dp.requireReplicasEqual(params, state, "...")          // after start/resume/growth
//   batch           = dp.localRows(global_batch)           // rows [r B/P, (r+1) B/P)
//   loss_value      = dp.meanLoss(loss.item())             // logged and NaN-checked globally
//   loss.backward(); dp.averageGradients(params)           // before clipping
//   if (dp.isRoot()) write checkpoints                     // evaluation runs on every rank
//
// Since every rank's loss is the mean over an equal share of the rows, the averaged gradient is
// the gradient of the whole batch's mean loss: P ranks with B/P rows each take the same steps as
// one rank with B rows (to float rounding).
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/protocol.h"
#include "trainers/checkpoint.h"
#include "trainers/distributed.h"
#include "trainers/muon.h"

namespace deepladder::trainers {

class DataParallel {
 public:
  // Joins the run the launcher's variables describe (distributed::rendezvousFromEnvironment); a
  // world of one when none are set. The collective timeout comes from DEEPLADDER_DIST_TIMEOUT_S
  // (seconds, default 300); the backend is NCCL for a CUDA device, Gloo otherwise.
  static DataParallel join(const std::string& device);
  explicit DataParallel(std::unique_ptr<distributed::DistributedContext> context);

  int rank() const { return context_->rank(); }
  int worldSize() const { return context_->worldSize(); }
  bool isRoot() const { return context_->isRoot(); }
  bool active() const { return context_->worldSize() > 1; }
  // For Muon (RunOptimizer::create): each rank orthogonalizes a share of the matrices and all
  // ranks gather the results (distributed::shardedApply); empty for a world of one.
  BatchOrthogonalizer muonOrthogonalizer() const;
  // "2 ranks (gloo)": for the run's device column.
  std::string describe() const;

  // The device this rank trains on: "cuda"/"cuda:N" become cuda:<local_rank> when P > 1 (the
  // first visible GPU when the launcher pinned each rank to its own, see deviceIndexForRank).
  std::string deviceFor(const std::string& configured) const;
  // (B, ...) global batch -> this rank's (B/P, ...) rows, a view. Throws UserError when P does
  // not divide B.
  torch::Tensor localRows(const torch::Tensor& global_batch) const;
  // Forwards messages on rank 0, drops them on the others.
  std::function<void(const protocol::Message&)> rootOnly(
      std::function<void(const protocol::Message&)> emit) const;

  // The mean of a per-rank loss over the ranks.
  double meanLoss(double local_loss) { return context_->globalMean(local_loss); }
  // After backward: every defined .grad becomes the mean over the ranks (bucketed all-reduce).
  void averageGradients(const std::vector<torch::Tensor>& parameters) {
    context_->averageGradients(parameters);
  }
  // Rank 0's parameter values on every rank (a fresh start).
  void broadcastParameters(const std::vector<torch::Tensor>& parameters) {
    context_->broadcastFromRoot(parameters);
  }
  // Parameters and the training counters equal on every rank, or std::runtime_error naming
  // `when` and what differs (after a resume: a rank that did not see the checkpoint).
  void requireReplicasEqual(const std::vector<torch::Tensor>& parameters,
                            const TrainingState& state, const std::string& when);

  // Seconds this rank spent in collectives so far.
  double communicationSeconds() const { return context_->communicationSeconds(); }
  distributed::DistributedContext& context() { return *context_; }

 private:
  std::unique_ptr<distributed::DistributedContext> context_;
};

}  // namespace deepladder::trainers
