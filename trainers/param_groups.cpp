// Muon beside per-group AdamW, with one schedule multiplier, checkpoint state and per-parameter
// state reset: see param_groups.h.
#include "trainers/param_groups.h"

#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>

namespace deepladder::trainers {

ParamGroups::ParamGroups(MuonGroup muon, std::vector<AdamWGroup> adamw_groups)
    : muon_lr_(muon.lr),
      momentum_ramp_steps_(muon.momentum_ramp_steps),
      muon_(std::move(muon.parameters), muon.options) {
  std::set<const void*> seen;
  const auto claim = [&seen](const torch::Tensor& t, const std::string& group) {
    if (!seen.insert(t.unsafeGetTensorImpl()).second)
      throw std::invalid_argument("ParamGroups: a tensor appears twice (again in group " + group +
                                  ")");
  };
  for (const auto& p : muon_.parameters()) claim(p.tensor, "muon");
  std::set<std::string> names{"muon"};
  for (auto& group : adamw_groups) {
    if (group.options.name.empty() || !names.insert(group.options.name).second)
      throw std::invalid_argument("ParamGroups: AdamW group name '" + group.options.name +
                                  "' is empty or used twice");
    AdamWGroupState state{group.options, std::move(group.parameters), {}};
    for (const auto& p : state.parameters) {
      claim(p, state.options.name);
      TORCH_CHECK(p.is_floating_point(), "ParamGroups: group ", state.options.name,
                  " holds a tensor that is not floating point");
      const auto options = p.options().requires_grad(false);
      state.state.push_back({0, torch::zeros_like(p, options), torch::zeros_like(p, options)});
    }
    adamw_.push_back(std::move(state));
  }
}

void ParamGroups::step(int64_t step, double lr_multiplier) {
  torch::NoGradGuard no_grad;
  muon_.step(muon_lr_ * lr_multiplier, muonMomentum(step, momentum_ramp_steps_));
  for (auto& group : adamw_) {
    const auto& o = group.options;
    const double lr = o.lr * lr_multiplier;
    for (size_t i = 0; i < group.parameters.size(); ++i) {
      const torch::Tensor& grad = group.parameters[i].grad();
      if (!grad.defined()) continue;
      AdamWTensorState& s = group.state[i];
      s.step += 1;  // per tensor: a reset tensor restarts its bias correction
      torch::Tensor p = group.parameters[i].detach();  // shares storage
      if (o.weight_decay != 0.0) p.mul_(1.0 - lr * o.weight_decay);
      s.exp_avg.mul_(o.beta1).add_(grad, 1.0 - o.beta1);
      s.exp_avg_sq.mul_(o.beta2).addcmul_(grad, grad, 1.0 - o.beta2);
      const double correction1 = 1.0 - std::pow(o.beta1, static_cast<double>(s.step));
      const double correction2 = 1.0 - std::pow(o.beta2, static_cast<double>(s.step));
      // eps outside the root: sqrt(v_hat) + eps, as torch.optim.AdamW.
      const torch::Tensor denominator = (s.exp_avg_sq / correction2).sqrt_().add_(o.eps);
      p.addcdiv_(s.exp_avg, denominator, -lr / correction1);
    }
  }
}

void ParamGroups::zeroGrad() {
  for (const auto& p : muon_.parameters()) p.tensor.mutable_grad() = torch::Tensor();
  for (auto& group : adamw_)
    for (auto& p : group.parameters) p.mutable_grad() = torch::Tensor();
}

void ParamGroups::resetState(const std::vector<torch::Tensor>& parameters) {
  torch::NoGradGuard no_grad;
  for (const auto& parameter : parameters) {
    bool found = muon_.resetState(parameter);
    for (auto& group : adamw_) {
      for (size_t i = 0; i < group.parameters.size() && !found; ++i) {
        if (!group.parameters[i].is_same(parameter)) continue;
        group.state[i].step = 0;
        group.state[i].exp_avg.zero_();
        group.state[i].exp_avg_sq.zero_();
        found = true;
      }
    }
    if (!found)
      throw std::invalid_argument("ParamGroups::resetState: the tensor belongs to no group");
  }
}

void ParamGroups::inheritState(const ParamGroups& previous) {
  torch::NoGradGuard no_grad;
  muon_.inheritState(previous.muon_);
  for (auto& group : adamw_) {
    for (size_t i = 0; i < group.parameters.size(); ++i) {
      for (const auto& old_group : previous.adamw_) {
        for (size_t j = 0; j < old_group.parameters.size(); ++j) {
          if (!old_group.parameters[j].is_same(group.parameters[i])) continue;
          group.state[i].step = old_group.state[j].step;
          group.state[i].exp_avg.copy_(old_group.state[j].exp_avg);
          group.state[i].exp_avg_sq.copy_(old_group.state[j].exp_avg_sq);
        }
      }
    }
  }
}

double ParamGroups::learningRate(const std::string& group, double lr_multiplier) const {
  if (group == "muon") return muon_lr_ * lr_multiplier;
  for (const auto& g : adamw_)
    if (g.options.name == group) return g.options.lr * lr_multiplier;
  throw std::invalid_argument("ParamGroups: no group named '" + group + "'");
}

std::vector<std::string> ParamGroups::groupNames() const {
  std::vector<std::string> names{"muon"};
  for (const auto& g : adamw_) names.push_back(g.options.name);
  return names;
}

int64_t ParamGroups::adamwStepCount(const torch::Tensor& parameter) const {
  for (const auto& g : adamw_)
    for (size_t i = 0; i < g.parameters.size(); ++i)
      if (g.parameters[i].is_same(parameter)) return g.state[i].step;
  throw std::invalid_argument("ParamGroups::adamwStepCount: no AdamW group owns the tensor");
}

void ParamGroups::save(torch::serialize::OutputArchive& archive, const std::string& prefix) const {
  muon_.save(archive, prefix + "muon.");
  for (const auto& g : adamw_) {
    const std::string base = prefix + "adamw." + g.options.name + ".";
    for (size_t i = 0; i < g.parameters.size(); ++i) {
      const std::string index = std::to_string(i);
      archive.write(base + "step." + index, torch::tensor(g.state[i].step, torch::kInt64),
                    /*is_buffer=*/true);
      archive.write(base + "exp_avg." + index, g.state[i].exp_avg.to(torch::kCPU), true);
      archive.write(base + "exp_avg_sq." + index, g.state[i].exp_avg_sq.to(torch::kCPU), true);
    }
  }
}

void ParamGroups::load(torch::serialize::InputArchive& archive, const std::string& prefix) {
  torch::NoGradGuard no_grad;
  // Read and check the AdamW state first, then let Muon read (it checks before it writes), and
  // only then overwrite the AdamW state: a failure anywhere leaves everything as it was.
  std::vector<std::vector<AdamWTensorState>> loaded;
  for (const auto& g : adamw_) {
    const std::string base = prefix + "adamw." + g.options.name + ".";
    std::vector<AdamWTensorState> group_state;
    for (size_t i = 0; i < g.parameters.size(); ++i) {
      const std::string index = std::to_string(i);
      torch::Tensor step, m, v;
      archive.read(base + "step." + index, step, /*is_buffer=*/true);
      archive.read(base + "exp_avg." + index, m, /*is_buffer=*/true);
      archive.read(base + "exp_avg_sq." + index, v, /*is_buffer=*/true);
      TORCH_CHECK(m.sizes() == g.parameters[i].sizes() && v.sizes() == g.parameters[i].sizes(),
                  "AdamW state ", g.options.name, ".", i, " has shape ", m.sizes(),
                  " but the model needs ", g.parameters[i].sizes(),
                  ": the checkpoint belongs to another model");
      group_state.push_back({step.item<int64_t>(), m, v});
    }
    loaded.push_back(std::move(group_state));
  }
  muon_.load(archive, prefix + "muon.");
  for (size_t k = 0; k < adamw_.size(); ++k) {
    for (size_t i = 0; i < adamw_[k].state.size(); ++i) {
      adamw_[k].state[i].step = loaded[k][i].step;
      adamw_[k].state[i].exp_avg.copy_(loaded[k][i].exp_avg);
      adamw_[k].state[i].exp_avg_sq.copy_(loaded[k][i].exp_avg_sq);
    }
  }
}

}  // namespace deepladder::trainers
