// Peak device memory of one training run, from its RunConfig alone (no LibTorch, like
// core/flop_model.h), so `deepladder plan` can tell before launch whether a run fits and pick its
// micro-batch. Every term counts what this project's trainer actually allocates (trainers/), in
// bytes; the run's larger growth phase (after growth) is the one counted. With N = micro-batch
// rows x seq_len tokens, L executed blocks, C = d_model, H = MLP hidden width, h heads, T =
// seq_len, e = 4 bytes (fp32) or 2 (bf16: autocast's bfloat16 copies):
//
//   weights      4 P                      fp32 master weights (P distinct parameters)
//   gradients    4 P                      fp32, one per weight
//   optimizer    AdamW: 2 moments, 8 P_adamw; Muon: 1 momentum, 4 P_muon (per group below)
//   workspace    AdamW's persistent scratch 4 P_adamw; Muon's step buffers (after backward)
//   cast weights bf16 only: 2 x (block matrices + head), autocast's cached bfloat16 copies
//   activations  per micro-batch: L x N x blockActivationBytesPerToken (what backward keeps:
//                the block input, the norms' x^2 (LibTorch's mean keeps its squared input),
//                1/rms and x / rms, the normed inputs of the four linears, q k v, the attention
//                probabilities (N h T, without a fused kernel), the MLP's hidden states), plus
//                the pre-operator state of every boundary operator, the embedding and the final
//                norm's input. With checkpointing: one 4 C input per stretch of k blocks (and the
//                anchor) plus one stretch recomputed in full. The fused fp32 CPU ops keep less:
//                no x^2, x / rms or probabilities (AttentionKernel::cpu_fused below).
//   logits       12 N V: the float32 logits (or their copy from bf16), the kept log-softmax and
//                its gradient, alive together at the start of backward (fused CPU
//                cross-entropy: 8 N V, the logits once and their gradient)
//   transient    the largest short-lived buffers of one block's backward: attention scores and
//                their gradient (2 e N h T without a fused kernel) or the MLP's hidden gradients;
//                the logits are freed by then, so a step peaks at max(logits, transient)
//   data         the validation batches held on the device (int64)
//   runtime      fixed overhead: on the CPU the resident LibTorch libraries, thread pools and the
//                corpus (measured; the worker's allocator returns freed tensors, so the resident
//                set follows the live tensors); on CUDA the context and library workspaces
//
// peak = max(training step, optimizer step, checkpoint write on the CPU, validation), each the
// sum of what is alive at that moment.
#pragma once

#include <cstdint>
#include <string>

#include "core/run_config.h"

namespace deepladder {

// How a block keeps its state for backward:
//   scores     the LibTorch composition: explicit (T,T) probabilities, the norms' x^2 (LibTorch
//              1.x on CUDA, and the CPU under bf16 autocast);
//   fused      a fused attention kernel (scaled_dot_product_attention's flash / memory-efficient
//              kernels on LibTorch 2.x CUDA) that keeps only q, k, v, the output and one
//              log-sum-exp per row;
//   cpu_fused  the trainer's fused fp32 CPU ops (trainers/fused_cpu_ops.h): attention as `fused`
//              with its rotated q, k beside the projection's output, norms that keep only their
//              input and 1/rms, SwiGLU that keeps only gate|up, and a cross-entropy that keeps the
//              logits once.
enum class AttentionKernel { scores, fused, cpu_fused };

struct MemoryModelOptions {
  bool cuda = false;  // a CUDA device (allocator peak) or the CPU (resident set)
  AttentionKernel attention = AttentionKernel::scores;
  double runtime_bytes = 0;  // fixed overhead (see above)
};

// The options for where `config` trains (train.device): CUDA with a fused attention kernel, or
// the CPU with explicit scores and the measured resident size of a worker process.
MemoryModelOptions memoryModelOptionsFor(const RunConfig& config);

// Bytes one executed block keeps for backward per token of a micro-batch (no checkpointing).
double blockActivationBytesPerToken(const ModelConfig& model, Precision precision,
                                    AttentionKernel attention);

struct MemoryEstimate {
  int64_t micro_batch = 0;  // rows per forward the estimate is for
  int64_t stretch = 0;      // executed blocks per checkpointed stretch (0: no checkpointing)
  double weights = 0;       // bytes, see the header comment
  double gradients = 0;
  double adamw_state = 0;  // AdamW moments (every parameter, or embedding/head/gains)
  double muon_state = 0;   // Muon momentum of the block matrices
  double optimizer_workspace = 0;
  double cast_weights = 0;
  double activations = 0;
  double logits = 0;
  double transient = 0;
  double data = 0;
  double runtime = 0;
  double training_peak = 0;    // forward + backward of one micro-batch
  double optimizer_peak = 0;   // the optimizer step
  double checkpoint_peak = 0;  // writing a checkpoint (CPU: serialized in host memory)
  double validation_peak = 0;  // evaluation with the logit lens
  double peak = 0;             // the largest of the four
  const char* peak_phase = "training";

  double optimizerState() const { return adamw_state + muon_state; }
};

// The estimate for `config` running `micro_batch` rows per forward (0: its whole per-rank batch).
MemoryEstimate estimateMemory(const RunConfig& config, int64_t micro_batch,
                              const MemoryModelOptions& options);

// One line per term, in GB, for messages and `plan`: "weights 1.2, gradients 1.2, ...".
std::string describeMemory(const MemoryEstimate& estimate);

}  // namespace deepladder
