// The recipe's combined optimizer: Muon for the block matrices, and AdamW
// (bias-corrected, eps outside the root) for the embedding and the head, each group with its own
// base learning rate. One step() applies the schedule's multiplier to every group:
//   lr(group, step) = base_lr(group) x multiplier      (multiplier = WSD x growth re-warm)
// AdamW per tensor p with gradient g, its own step count t (1 at its first update):
//   p <- p (1 - lr wd)                                  (decoupled decay; wd 0 by default)
//   m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
//   p <- p - lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
// Checkpoints: save()/load() write and read the whole state (Muon momentum and variance; AdamW
// moments and per-tensor step counts) in a torch::serialize archive. Growth: resetState() gives
// chosen parameters fresh state (zero buffers, AdamW count 0) as if they had just been added.
//
// What it does not do: it does not choose which parameter goes where (the caller builds the
// groups from the model), clip gradients (the recipe has no clipping), or compute the schedule.
// A parameter whose .grad is undefined is skipped by every group (see zeroGrad()).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "trainers/muon.h"

namespace deepladder::trainers {

struct AdamWGroupOptions {
  std::string name;  // "embedding", "head": names the group in checkpoints and errors
  double lr = 0.0;   // base learning rate (before the schedule multiplier)
  double beta1 = 0.8;
  double beta2 = 0.95;
  double eps = 1e-10;         // added to the root of the bias-corrected second moment
  double weight_decay = 0.0;  // decoupled, multiplied by lr
};

struct AdamWGroup {
  AdamWGroupOptions options;
  std::vector<torch::Tensor> parameters;
};

struct MuonGroup {
  double lr = 0.0;  // base matrix learning rate (0.04 x depth scaling in the recipe)
  int64_t momentum_ramp_steps = 300;  // muonMomentum's ramp (train.muon_momentum_steps)
  MuonOptions options;
  std::vector<MuonParameter> parameters;
};

class ParamGroups {
 public:
  // Throws std::invalid_argument if a tensor appears twice or a group name is empty or repeated.
  ParamGroups(MuonGroup muon, std::vector<AdamWGroup> adamw_groups);

  // One update of every group at the 0-based training step `step` (Muon's momentum is
  // muonMomentum(step, the group's ramp)) with every base rate multiplied by `lr_multiplier`.
  void step(int64_t step, double lr_multiplier);

  // Sets every gradient to undefined (PyTorch's set_to_none), so a parameter that gets no
  // gradient before the next step() is left alone by it.
  void zeroGrad();

  // Fresh state for each of `parameters` (growth: copied cores start with zero state). Throws
  // std::invalid_argument for a tensor no group owns.
  void resetState(const std::vector<torch::Tensor>& parameters);
  // Growth: takes over the state of every parameter `previous` also holds (matched by identity;
  // AdamW step counts too); parameters new to this one keep their fresh state.
  void inheritState(const ParamGroups& previous);

  // The rate step() would use for `group` ("muon" or an AdamW group's name) at this multiplier;
  // Muon's per-matrix step size is this times sqrt(max(1, rows/cols)).
  double learningRate(const std::string& group, double lr_multiplier) const;
  std::vector<std::string> groupNames() const;  // "muon", then the AdamW groups in order

  const Muon& muon() const { return muon_; }
  // AdamW's update count for `parameter` (0 = fresh state); throws if no AdamW group owns it.
  int64_t adamwStepCount(const torch::Tensor& parameter) const;

  // State under "<prefix>muon.*" and "<prefix>adamw.<group>.{step,exp_avg,exp_avg_sq}.<i>".
  void save(torch::serialize::OutputArchive& archive, const std::string& prefix) const;
  // Reads and checks everything before changing anything: a bad archive leaves it untouched.
  void load(torch::serialize::InputArchive& archive, const std::string& prefix);

 private:
  struct AdamWTensorState {
    int64_t step = 0;
    torch::Tensor exp_avg;     // same shape as the parameter
    torch::Tensor exp_avg_sq;  // same shape as the parameter
  };
  struct AdamWGroupState {
    AdamWGroupOptions options;
    std::vector<torch::Tensor> parameters;
    std::vector<AdamWTensorState> state;
  };
  double muon_lr_;
  int64_t momentum_ramp_steps_;
  Muon muon_;
  std::vector<AdamWGroupState> adamw_;
};

}  // namespace deepladder::trainers
