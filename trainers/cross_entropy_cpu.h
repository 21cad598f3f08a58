// Fused next-token cross-entropy for CPU float32 logits, straight from the head's output: the
// padded vocabulary columns are skipped and the output scale m_out is applied on the fly, so the
// logits are kept once (the composition also keeps a cut-off copy, a scaled copy and the
// log-softmax). Forward: per row, loss_r = lse(m z_r[0:V]) - m z_r[t_r]; the mean over rows
// whose target is not -100 (torch's ignore_index). Saves the logits and the per-row lse;
// backward: dz_rc = g m (softmax_c - [c = t_r]) / rows for c < V, 0 for padding columns.
// gpt.cpp's loss dispatches here on the fused CPU path (fused_cpu_ops.h); its composition
// (decode + torch cross_entropy) is the reference. First derivatives only.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// logits (R, V_padded) float32 on the CPU, targets (R) int64 in [0, V) or -100 -> scalar.
torch::Tensor crossEntropyCpu(const torch::Tensor& logits, const torch::Tensor& targets,
                              int64_t vocab_size, double output_scale);

}  // namespace deepladder::trainers
