// AdamW and gradient clipping (see adamw.h).
#include "trainers/adamw.h"

#include <cmath>

namespace deepladder::trainers {

AdamW::AdamW(std::vector<torch::Tensor> parameters, AdamWOptions options)
    : parameters_(std::move(parameters)), options_(options) {
  torch::NoGradGuard no_grad;
  slots_.resize(parameters_.size());
  for (const bool decay : {true, false}) {
    std::vector<torch::Tensor> members;
    int64_t total = 0;
    for (size_t i = 0; i < parameters_.size(); ++i) {
      const auto& p = parameters_[i];
      if ((p.dim() >= 2) != decay) continue;
      slots_[i] = Slot{groups_.size(), total};
      members.push_back(p);
      total += p.numel();
    }
    if (members.empty()) continue;
    Group group;
    group.name = decay ? "decay" : "no_decay";
    group.decay = decay;
    group.params = torch::empty({total}, members.front().options());
    group.grads = torch::zeros({total}, members.front().options());
    int64_t offset = 0;
    for (auto& p : members) {
      const int64_t n = p.numel();
      auto slice = group.params.narrow(0, offset, n);
      slice.copy_(p.reshape({-1}));
      p.set_data(slice.view(p.sizes()));
      p.mutable_grad() = group.grads.narrow(0, offset, n).view(p.sizes());
      offset += n;
    }
    group.exp_avg = torch::zeros_like(group.params);
    group.exp_avg_sq = torch::zeros_like(group.params);
    group.scratch = torch::empty_like(group.params);
    groups_.push_back(std::move(group));
  }
}

const AdamW::Slot* AdamW::slotOf(const torch::Tensor& parameter) const {
  for (size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].unsafeGetTensorImpl() == parameter.unsafeGetTensorImpl()) return &slots_[i];
  return nullptr;
}

std::pair<torch::Tensor, torch::Tensor> AdamW::moments(const torch::Tensor& parameter) const {
  const Slot* slot = slotOf(parameter);
  TORCH_CHECK(slot != nullptr, "AdamW::moments: not a parameter of this optimizer");
  const Group& g = groups_[slot->group];
  const int64_t n = parameter.numel();
  return {g.exp_avg.narrow(0, slot->offset, n).view(parameter.sizes()),
          g.exp_avg_sq.narrow(0, slot->offset, n).view(parameter.sizes())};
}

void AdamW::inheritState(const AdamW& previous) {
  torch::NoGradGuard no_grad;
  for (const auto& p : parameters_) {
    if (previous.slotOf(p) == nullptr) continue;
    auto [m_old, v_old] = previous.moments(p);
    auto [m_new, v_new] = moments(p);
    m_new.copy_(m_old);
    v_new.copy_(v_old);
  }
  step_count_ = previous.step_count_;
}

void AdamW::zeroGrad() {
  for (auto& g : groups_) g.grads.zero_();
}

double AdamW::clipGradNorm(double max_norm) {
  torch::NoGradGuard no_grad;
  double sum_sq = 0;
  for (auto& g : groups_) {
    const double norm = g.grads.norm().item<double>();
    sum_sq += norm * norm;
  }
  const double total = std::sqrt(sum_sq);
  if (max_norm > 0 && std::isfinite(total) && total > max_norm) {
    const double scale = max_norm / (total + 1e-6);
    for (auto& g : groups_) g.grads.mul_(scale);
  }
  return total;
}

void AdamW::step(double lr) {
  torch::NoGradGuard no_grad;
  ++step_count_;
  const double b1 = options_.beta1, b2 = options_.beta2;
  const double bias1 = 1.0 - std::pow(b1, static_cast<double>(step_count_));
  const double bias2 = 1.0 - std::pow(b2, static_cast<double>(step_count_));
  const double step_size = lr / bias1;
  const double inv_sqrt_bias2 = 1.0 / std::sqrt(bias2);
  for (auto& g : groups_) {
    if (g.decay && options_.weight_decay != 0) g.params.mul_(1.0 - lr * options_.weight_decay);
    g.exp_avg.mul_(b1).add_(g.grads, 1.0 - b1);                  // m = b1 m + (1-b1) g
    g.exp_avg_sq.mul_(b2).addcmul_(g.grads, g.grads, 1.0 - b2);  // v = b2 v + (1-b2) g^2
    torch::sqrt_out(g.scratch, g.exp_avg_sq).mul_(inv_sqrt_bias2).add_(options_.eps);
    g.params.addcdiv_(g.exp_avg, g.scratch, -step_size);  // p -= lr m^ / (sqrt(v^) + eps)
  }
}

void AdamW::save(torch::serialize::OutputArchive& archive, const std::string& prefix) const {
  archive.write(prefix + "step", torch::tensor(step_count_, torch::kInt64));
  for (const auto& g : groups_) {
    archive.write(prefix + "exp_avg." + g.name, g.exp_avg.to(torch::kCPU), /*is_buffer=*/true);
    archive.write(prefix + "exp_avg_sq." + g.name, g.exp_avg_sq.to(torch::kCPU), true);
  }
}

void AdamW::load(torch::serialize::InputArchive& archive, const std::string& prefix) {
  torch::NoGradGuard no_grad;
  torch::Tensor step;
  archive.read(prefix + "step", step);
  std::vector<std::pair<torch::Tensor, torch::Tensor>> moments;
  for (const auto& g : groups_) {
    torch::Tensor m, v;
    archive.read(prefix + "exp_avg." + g.name, m, /*is_buffer=*/true);
    archive.read(prefix + "exp_avg_sq." + g.name, v, /*is_buffer=*/true);
    TORCH_CHECK(m.sizes() == g.exp_avg.sizes() && v.sizes() == g.exp_avg_sq.sizes(),
                "optimizer state of group ", g.name, " has the wrong size for this model");
    moments.emplace_back(m, v);
  }
  step_count_ = step.item<int64_t>();
  for (size_t i = 0; i < groups_.size(); ++i) {
    groups_[i].exp_avg.copy_(moments[i].first);
    groups_[i].exp_avg_sq.copy_(moments[i].second);
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
