// Per-step state norms and step-to-step changes of a looped model (see loop_stats.h).
#include "trainers/squaring/loop_stats.h"

#include <cmath>

namespace deepladder::trainers::squaring {

namespace {

// (sum over real positions of ||v||_2, real positions) of v (B,L,C) under mask (B,L).
std::pair<double, double> maskedNormSum(const torch::Tensor& v, const torch::Tensor& mask) {
  const auto norms = v.to(torch::kFloat32).norm(2, -1);  // (B,L)
  const auto m = mask.to(norms.device(), torch::kFloat32);
  return {(norms * m).sum().item<double>(), m.sum().item<double>()};
}

double ratio(const std::map<int64_t, std::pair<double, double>>& sums, int64_t k) {
  const auto it = sums.find(k);
  if (it == sums.end() || it->second.second == 0) return std::nan("");
  return it->second.first / it->second.second;
}

}  // namespace

void LoopStats::add(const LoopTrace& trace) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < trace.states.size(); ++i) {
    const int64_t k = static_cast<int64_t>(i) + 1;
    const auto [sum, count] = maskedNormSum(trace.states[i], trace.mask);
    norm_[k].first += sum;
    norm_[k].second += count;
    if (i == 0) continue;
    const auto [dsum, dcount] = maskedNormSum(trace.states[i] - trace.states[i - 1], trace.mask);
    delta_[k].first += dsum;
    delta_[k].second += dcount;
  }
}

double LoopStats::norm(int64_t k) const {
  return ratio(norm_, k);
}

double LoopStats::delta(int64_t k) const {
  return ratio(delta_, k);
}

std::vector<std::pair<std::string, double>> LoopStats::metrics(
    const std::string& prefix, const std::vector<int64_t>& steps) const {
  std::vector<int64_t> ks = steps;
  if (ks.empty())
    for (const auto& [k, sums] : norm_) ks.push_back(k);
  std::vector<std::pair<std::string, double>> out;
  for (int64_t k : ks) {
    if (norm_.count(k) == 0) continue;
    out.emplace_back(prefix + "_norm@k=" + std::to_string(k), norm(k));
    if (delta_.count(k)) out.emplace_back(prefix + "_delta@k=" + std::to_string(k), delta(k));
  }
  return out;
}

}  // namespace deepladder::trainers::squaring
