// AdamW (Loshchilov & Hutter 2019) over plain tensors, with the state explicit so a checkpoint
// restores it exactly: first and second moments per parameter and the step count. Weight decay
// is decoupled (p -= lr * wd * p) and applies to parameters with two or more dimensions (matrices
// and embeddings), never to norm gains. Also global-norm gradient clipping.
#pragma once

#include <torch/torch.h>

#include <string>
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

  void zeroGrad();       // zeroes gradients in place (no re-allocation each step)
  void step(double lr);  // one update with learning rate `lr`

  int64_t stepCount() const { return step_count_; }
  const std::vector<torch::Tensor>& parameters() const { return parameters_; }

  // State under keys "<prefix>step", "<prefix>exp_avg.<i>", "<prefix>exp_avg_sq.<i>".
  void save(torch::serialize::OutputArchive& archive, const std::string& prefix) const;
  void load(torch::serialize::InputArchive& archive, const std::string& prefix);

 private:
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> exp_avg_;     // first moments, like each parameter
  std::vector<torch::Tensor> exp_avg_sq_;  // second moments
  std::vector<torch::Tensor> scratch_;     // reused for the denominator, no per-step allocation
  std::vector<bool> decays_;
  AdamWOptions options_;
  int64_t step_count_ = 0;
};

// Scales all gradients so their global L2 norm is at most `max_norm` (0 disables clipping) and
// returns the norm before clipping. NaN/Inf gradients are left alone (the loss check catches them).
double clipGradNorm(const std::vector<torch::Tensor>& parameters, double max_norm);

}  // namespace deepladder::trainers
