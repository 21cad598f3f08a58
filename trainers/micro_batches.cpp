// Micro-batched forward and backward passes with gradient accumulation (see micro_batches.h).
#include "trainers/micro_batches.h"

#include <algorithm>

#include "trainers/precision.h"

namespace deepladder::trainers {

std::vector<torch::Tensor> splitRows(const torch::Tensor& rows, int64_t micro_batch) {
  const int64_t total = rows.size(0);
  if (micro_batch <= 0 || micro_batch >= total) return {rows};
  std::vector<torch::Tensor> parts;
  for (int64_t begin = 0; begin < total; begin += micro_batch)
    parts.push_back(rows.narrow(0, begin, std::min(micro_batch, total - begin)));
  return parts;
}

double accumulateGradients(GPT& model, const torch::Tensor& rows, const ForwardOptions& options) {
  const int64_t T = rows.size(1) - 1;
  const double total_rows = static_cast<double>(rows.size(0));
  double loss_sum = 0;
  for (const torch::Tensor& part : splitRows(rows, options.micro_batch)) {
    const double share = static_cast<double>(part.size(0)) / total_rows;  // of the mean loss
    torch::Tensor loss;
    {
      AutocastGuard autocast(options.precision, part.device());  // forward only, as autocast wants
      loss = model->loss(part.narrow(1, 0, T), part.narrow(1, 1, T));  // mean over part's targets
    }
    loss_sum += share * loss.item<double>();
    (share == 1.0 ? loss : loss * share).backward();
  }
  return loss_sum;
}

}  // namespace deepladder::trainers
