// A token batch (rows of T+1 int32 ids from the data layer, trainers/data) as the int64 tensor the
// model reads, on the run's device: the training loop and the depth evaluation both take their
// batches through it.
#pragma once

#include <torch/torch.h>

#include "trainers/data/token_data.h"

namespace deepladder::trainers {

// (rows, T+1) int32 -> (rows, T+1) int64 on `device`.
inline torch::Tensor batchTensor(const data::Batch& batch, const torch::Device& device) {
  auto host = torch::from_blob(const_cast<int32_t*>(batch.tokens.data()),
                               {batch.rows, batch.seq_len + 1}, torch::kInt32);
  return host.to(device, torch::kInt64);
}

}  // namespace deepladder::trainers
