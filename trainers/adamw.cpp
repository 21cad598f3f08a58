// AdamW and gradient clipping (see adamw.h).
#include "trainers/adamw.h"

#include <cmath>

namespace deepladder::trainers {

AdamW::AdamW(std::vector<torch::Tensor> parameters, AdamWOptions options)
    : parameters_(std::move(parameters)), options_(options) {
  for (const auto& p : parameters_) {
    exp_avg_.push_back(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
    exp_avg_sq_.push_back(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
    scratch_.push_back(torch::empty_like(p, torch::MemoryFormat::Contiguous));
    decays_.push_back(p.dim() >= 2);
  }
}

void AdamW::zeroGrad() {
  for (auto& p : parameters_) {
    auto& grad = p.mutable_grad();
    if (grad.defined()) grad.zero_();
  }
}

void AdamW::step(double lr) {
  torch::NoGradGuard no_grad;
  ++step_count_;
  const double b1 = options_.beta1, b2 = options_.beta2;
  const double bias1 = 1.0 - std::pow(b1, static_cast<double>(step_count_));
  const double bias2 = 1.0 - std::pow(b2, static_cast<double>(step_count_));
  const double step_size = lr / bias1;
  const double inv_sqrt_bias2 = 1.0 / std::sqrt(bias2);
  for (size_t i = 0; i < parameters_.size(); ++i) {
    auto& p = parameters_[i];
    const auto& g = p.grad();
    if (!g.defined()) continue;
    if (decays_[i] && options_.weight_decay != 0) p.mul_(1.0 - lr * options_.weight_decay);
    exp_avg_[i].mul_(b1).add_(g, 1.0 - b1);            // m = b1 m + (1-b1) g
    exp_avg_sq_[i].mul_(b2).addcmul_(g, g, 1.0 - b2);  // v = b2 v + (1-b2) g^2
    auto& denom = scratch_[i];
    torch::sqrt_out(denom, exp_avg_sq_[i]).mul_(inv_sqrt_bias2).add_(options_.eps);  // sqrt(v^)+eps
    p.addcdiv_(exp_avg_[i], denom, -step_size);  // p -= lr m^ / denom
  }
}

void AdamW::save(torch::serialize::OutputArchive& archive, const std::string& prefix) const {
  archive.write(prefix + "step", torch::tensor(step_count_, torch::kInt64));
  for (size_t i = 0; i < parameters_.size(); ++i) {
    archive.write(prefix + "exp_avg." + std::to_string(i), exp_avg_[i], /*is_buffer=*/true);
    archive.write(prefix + "exp_avg_sq." + std::to_string(i), exp_avg_sq_[i], /*is_buffer=*/true);
  }
}

void AdamW::load(torch::serialize::InputArchive& archive, const std::string& prefix) {
  torch::NoGradGuard no_grad;
  // Read everything first, then commit: a bad archive leaves the optimizer untouched.
  torch::Tensor step;
  archive.read(prefix + "step", step);
  std::vector<torch::Tensor> ms, vs;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    torch::Tensor m, v;
    archive.read(prefix + "exp_avg." + std::to_string(i), m, /*is_buffer=*/true);
    archive.read(prefix + "exp_avg_sq." + std::to_string(i), v, /*is_buffer=*/true);
    TORCH_CHECK(m.sizes() == exp_avg_[i].sizes() && v.sizes() == exp_avg_sq_[i].sizes(),
                "optimizer state ", i, " has the wrong shape for this model");
    ms.push_back(m);
    vs.push_back(v);
  }
  step_count_ = step.item<int64_t>();
  for (size_t i = 0; i < parameters_.size(); ++i) {
    exp_avg_[i].copy_(ms[i]);
    exp_avg_sq_[i].copy_(vs[i]);
  }
}

double clipGradNorm(const std::vector<torch::Tensor>& parameters, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return 0.0;
  auto norms = at::_foreach_norm(grads, 2);
  const double total = torch::stack(norms).norm().item<double>();
  if (max_norm > 0 && std::isfinite(total) && total > max_norm) {
    const double scale = max_norm / (total + 1e-6);
    at::_foreach_mul_(grads, scale);
  }
  return total;
}

}  // namespace deepladder::trainers
