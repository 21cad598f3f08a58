// AdamW (Loshchilov & Hutter 2019) with its state explicit, so a checkpoint restores it exactly:
// first and second moments and the step count. Weight decay is decoupled (p -= lr * wd * p) and
// applies to parameters with two or more dimensions (matrices and embeddings), never to norm
// gains. Also global-norm gradient clipping.
//
// Speed: the constructor packs the parameters of each group (decayed, not decayed) into one flat
// buffer and re-points every parameter (set_data) and its gradient at a slice of it. Autograd
// then accumulates straight into the flat gradient, and the update, the clipping norm and the
// zeroing are a handful of large ops instead of several per tensor, which matters for small
// models. Parameters keep their identity, so modules and checkpoints see nothing different;
// do not move the model to another device after building its optimizer.
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace deepladder::trainers {

struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double weight_decay = 0.1;
};

class AdamW {
 public:
  AdamW(std::vector<torch::Tensor> parameters, AdamWOptions options);

  void zeroGrad();       // zeroes the flat gradients in place
  void step(double lr);  // one update with learning rate `lr`
  // Scales the gradients so their global L2 norm is at most `max_norm` (0 disables) and returns
  // the norm before clipping.
  double clipGradNorm(double max_norm);

  int64_t stepCount() const { return step_count_; }
  const std::vector<torch::Tensor>& parameters() const { return parameters_; }

  // Growth: copies the moments of every parameter this optimizer shares with `previous` (the
  // same tensor, matched by identity) and its step count; parameters new to this optimizer keep
  // their fresh zero moments. Build the new optimizer over the grown model's parameters first.
  void inheritState(const AdamW& previous);
  // The first and second moments of one of this optimizer's parameters (views, shaped like it).
  std::pair<torch::Tensor, torch::Tensor> moments(const torch::Tensor& parameter) const;

  // State under "<prefix>step", "<prefix>exp_avg.<group>", "<prefix>exp_avg_sq.<group>".
  void save(torch::serialize::OutputArchive& archive, const std::string& prefix) const;
  // Reads everything before changing anything: a bad archive leaves the optimizer untouched.
  void load(torch::serialize::InputArchive& archive, const std::string& prefix);

 private:
  struct Group {
    std::string name;
    bool decay = false;
    torch::Tensor params;      // (N) flat; the parameters are views of it
    torch::Tensor grads;       // (N) flat; the parameters' .grad are views of it
    torch::Tensor exp_avg;     // (N) first moment
    torch::Tensor exp_avg_sq;  // (N) second moment
    torch::Tensor scratch;     // (N) denominator, reused every step
  };
  struct Slot {
    size_t group = 0;
    int64_t offset = 0;
  };
  const Slot* slotOf(const torch::Tensor& parameter) const;  // nullptr when not ours
  std::vector<torch::Tensor> parameters_;
  std::vector<Slot> slots_;  // parallel to parameters_
  std::vector<Group> groups_;
  AdamWOptions options_;
  int64_t step_count_ = 0;
};

// The same clipping for parameters not owned by an AdamW (per-tensor norms).
double clipGradNorm(const std::vector<torch::Tensor>& parameters, double max_norm);

}  // namespace deepladder::trainers
