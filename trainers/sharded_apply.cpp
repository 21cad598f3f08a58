// Sharded per-tensor work over the ranks: shardOwners and shardedApply (see distributed.h).
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <stdexcept>

#include "trainers/distributed.h"  // declares them

namespace deepladder::trainers::distributed {

std::vector<int> shardOwners(const std::vector<int64_t>& numels, int world_size) {
  std::vector<size_t> order(numels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return numels[a] > numels[b]; });
  std::vector<int64_t> load(static_cast<size_t>(std::max(world_size, 1)), 0);
  std::vector<int> owners(numels.size(), 0);
  for (size_t index : order) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();
    owners[index] = static_cast<int>(least);
    load[static_cast<size_t>(least)] += numels[index];
  }
  return owners;
}

void shardedApply(DistributedContext& context, const std::vector<torch::Tensor>& tensors,
                  const std::function<torch::Tensor(const torch::Tensor&)>& fn) {
  torch::NoGradGuard no_grad;
  auto apply = [&](const torch::Tensor& t) {
    torch::Tensor result = fn(t);
    if (!result.sizes().equals(t.sizes()))
      throw std::invalid_argument("shardedApply: fn changed the shape " + c10::str(t.sizes()) +
                                  " to " + c10::str(result.sizes()));
    return result;
  };
  if (context.worldSize() <= 1) {
    for (const auto& t : tensors) t.copy_(apply(t));
    return;
  }
  for (const auto& t : tensors)
    if (t.scalar_type() != tensors[0].scalar_type() || t.device() != tensors[0].device())
      throw std::invalid_argument("shardedApply: all tensors need one dtype and device");
  const auto begin = std::chrono::steady_clock::now();
  std::vector<int64_t> numels;
  for (const auto& t : tensors) numels.push_back(t.numel());
  const auto owners = shardOwners(numels, context.worldSize());
  std::vector<int64_t> length(static_cast<size_t>(context.worldSize()), 0);
  for (size_t i = 0; i < tensors.size(); ++i) length[static_cast<size_t>(owners[i])] += numels[i];
  const int64_t padded = std::max<int64_t>(1, *std::max_element(length.begin(), length.end()));

  // This rank's results, packed in list order; the computing time is not communication.
  const auto compute_begin = std::chrono::steady_clock::now();
  torch::Tensor mine = torch::zeros({padded}, tensors[0].options());
  int64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (owners[i] != context.rank()) continue;
    mine.narrow(0, offset, numels[i]).copy_(apply(tensors[i]).reshape({-1}));
    offset += numels[i];
  }
  const double compute_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - compute_begin).count();

  std::vector<torch::Tensor> gathered;
  context.allGatherFlat(mine, gathered);
  std::vector<int64_t> offsets(static_cast<size_t>(context.worldSize()), 0);
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto& at = offsets[static_cast<size_t>(owners[i])];
    tensors[i].copy_(
        gathered[static_cast<size_t>(owners[i])].narrow(0, at, numels[i]).view(tensors[i].sizes()));
    at += numels[i];
  }
  context.communication_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() -
      compute_seconds;
}

}  // namespace deepladder::trainers::distributed
