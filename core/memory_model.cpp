// Peak memory of a training run (see memory_model.h).
#include "core/memory_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/architecture.h"
#include "core/flop_model.h"
#include "core/fused_cpu_ops_rule.h"

namespace deepladder {

namespace {

constexpr double kFloat = 4;  // bytes of a float32
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// Fixed resident set of a CPU worker beyond its tensors, measured on this project's Debian build:
// the shared libraries as loaded (LibTorch, oneDNN, BLAS and their dependencies: about 163 MB, the
// peak RSS of a worker that stops at a missing config) plus LibTorch's first-use state, the thread
// pools, the protocol and the built-in corpus (about 19 MB more: a one-step d16 x 1 run peaks at
// 182 MB). memory_bench's "runtime" line measures it again. No allocator slack is added: the worker
// has glibc hand freed tensors back to the system (trainers/memory_usage.h), so the resident set
// follows the live tensors.
constexpr double kCpuRuntimeBytes = 182e6;
// CUDA context, cuBLAS / cuDNN workspaces and the caching allocator's slack beyond the tensors.
constexpr double kCudaRuntimeBytes = 1.0 * kGiB;

// Boundary operators one forward applies (pcc: between passes and before the coda; vanilla: the
// plain-stack form every boundary_every blocks after the source).
int64_t boundaryOperators(const ModelConfig& m, int64_t executed) {
  if (m.arch == Arch::pcc) return std::max<int64_t>(1, architectureShape(m).after.passes);
  if (m.boundary_every <= 0) return 0;
  int64_t count = 0;
  for (int64_t l = m.boundary_every; l < executed; l += m.boundary_every)
    if (l > m.boundary_source) ++count;
  return count;
}

// The executed block after which the boundary operator's anchor is taken (a checkpointed stretch
// ends there); -1 when there is none.
int64_t anchorAfter(const ModelConfig& m) {
  if (m.arch == Arch::pcc) return architectureShape(m).split.prelude;
  return m.boundary_every > 0 ? m.boundary_source : -1;
}

struct Stretches {
  int64_t count = 0;    // stretches (one kept input each)
  int64_t longest = 0;  // executed blocks of the longest (recomputed at once)
};

// The trainer's cut (trainers/gpt.cpp forwardCheckpointed): k blocks a stretch, ending early where
// the anchor is taken.
Stretches cutStretches(int64_t executed, int64_t k, int64_t anchor) {
  Stretches s;
  for (int64_t begin = 0; begin < executed;) {
    int64_t end = std::min(executed, begin + k);
    if (anchor > begin && anchor < end) end = anchor;
    ++s.count;
    s.longest = std::max(s.longest, end - begin);
    begin = end;
  }
  return s;
}

int64_t stretchFor(const TrainConfig& t, int64_t executed) {
  switch (t.activation_checkpointing) {
    case ActivationCheckpointing::none:
      return 0;
    case ActivationCheckpointing::blocks:
      return 1;
    case ActivationCheckpointing::every_k:
      if (t.activation_checkpointing_k > 0) return t.activation_checkpointing_k;
      return std::max<int64_t>(
          1, std::llround(std::sqrt(static_cast<double>(std::max<int64_t>(1, executed)))));
  }
  return 0;
}

double gb(double bytes) {
  return bytes / 1e9;
}

}  // namespace

MemoryModelOptions memoryModelOptionsFor(const RunConfig& config) {
  MemoryModelOptions o;
  o.cuda = config.train.device.rfind("cuda", 0) == 0;
  o.attention = o.cuda ? AttentionKernel::fused : AttentionKernel::scores;
  if (fusedCpuOpsRun(/*on_cpu=*/!o.cuda, config.train.precision))
    o.attention = AttentionKernel::cpu_fused;
  o.runtime_bytes = o.cuda ? kCudaRuntimeBytes : kCpuRuntimeBytes;
  return o;
}

double blockActivationBytesPerToken(const ModelConfig& m, Precision precision,
                                    AttentionKernel attention) {
  const double C = static_cast<double>(m.d_model);
  const double H = static_cast<double>(m.mlpHidden());
  const double heads = static_cast<double>(m.n_head);
  const double T = static_cast<double>(m.seq_len);
  const double e = precision == Precision::bf16 ? 2 : kFloat;  // linear inputs and outputs
  const double gain = m.norm_gain ? 1 : 0;
  const bool cpu_fused = attention == AttentionKernel::cpu_fused;
  double bytes = 0;
  bytes += kFloat * C;  // block input (read by the attention norm)
  bytes += 2 * kFloat;  // the two norms' 1/rms
  if (!cpu_fused) {
    bytes += 2 * kFloat * C;         // the norms' x^2, kept by the mean (measured, LibTorch 1.13)
    bytes += gain * 2 * kFloat * C;  // x / rms kept for the two gains
  }
  bytes += 2 * e * C;          // inputs of the qkv and up projections
  bytes += kFloat * C;         // h = x + attention branch (read by the MLP norm)
  bytes += e * C;              // input of the output projection (heads merged)
  if (m.qk_norm && cpu_fused)  // the rotated q, k (the norms' inputs) and 1/rms
    bytes += 2 * e * C + 2 * kFloat * heads;
  else if (m.qk_norm)  // rotated q, k, their squares, 1/rms and x / rms
    bytes += 2 * e * C + 2 * e * C + 2 * kFloat * heads + gain * 2 * e * C;
  if (cpu_fused) {
    bytes += 3 * e * C;               // the qkv projection's output (v is a view of it)
    bytes += 2 * e * C;               // the rotated (or normed) q and k
    bytes += e * C + kFloat * heads;  // attention output and its log-sum-exp
  } else if (attention == AttentionKernel::scores) {
    bytes += 3 * e * C;      // q, k, v as (B H, T, D) copies for the batched products
    bytes += e * heads * T;  // softmax probabilities (B H, T, T)
  } else {
    bytes += 3 * e * C;               // the qkv projection's output (v and, without QK-norm, q, k)
    bytes += e * C + kFloat * heads;  // attention output and its log-sum-exp
  }
  // MLP: swiglu keeps gate|up (2H), silu(gate) and the product (fused: gate|up and the product);
  // gelu its input and output.
  if (m.mlp == MlpKind::swiglu)
    bytes += (cpu_fused ? 3 : 4) * e * H;
  else
    bytes += 2 * e * H;
  return bytes;
}

MemoryEstimate estimateMemory(const RunConfig& config, int64_t micro_batch,
                              const MemoryModelOptions& o) {
  const ModelConfig& m = config.model;
  const TrainConfig& t = config.train;
  MemoryEstimate est;
  const int64_t rows = t.batch_size / std::max<int64_t>(1, t.ranks);
  est.micro_batch = micro_batch > 0 ? std::min(micro_batch, rows) : rows;
  const double N = static_cast<double>(est.micro_batch * m.seq_len);  // tokens per forward
  const double C = static_cast<double>(m.d_model);
  const double H = static_cast<double>(m.mlpHidden());
  const double heads = static_cast<double>(m.n_head);
  const double T = static_cast<double>(m.seq_len);
  const double V = static_cast<double>(m.vocab_size);
  const double vocab_rows = static_cast<double>(m.vocab_padded > 0 ? m.vocab_padded : m.vocab_size);
  const bool bf16 = t.precision == Precision::bf16;
  const double e = bf16 ? 2 : kFloat;
  const double gain = m.norm_gain ? 1 : 0;

  // --- parameters, gradients, optimizer (the grown model) ----------------------------------------
  const ParameterCounts counts = countParameters(m);
  const ArchitectureShape shape = architectureShape(m);
  const double distinct = static_cast<double>(shape.after.distinct_blocks);
  const double up_rows = m.mlp == MlpKind::swiglu ? 2 * H : H;
  const double block_matrices = distinct * (4 * C * C + up_rows * C + H * C);
  const double total = static_cast<double>(counts.total_after_growth);
  est.weights = kFloat * total;
  est.gradients = kFloat * total;
  if (t.optimizer == OptimizerKind::muon) {
    const double adamw_params = total - block_matrices;  // embedding, head, gains
    est.muon_state = kFloat * block_matrices;
    est.adamw_state = 2 * kFloat * adamw_params;
    // Step buffers: every matrix's normalized Nesterov update stacked by shape (float32), and for
    // the largest shape batch its Nesterov copies, the bf16 Polar-Express iterates and products
    // and the float32 result (about 16 bytes an element).
    const double largest =
        std::max({distinct * 4 * C * C, distinct * (up_rows / H) * H * C, distinct * C * H});
    est.optimizer_workspace = kFloat * adamw_params + kFloat * block_matrices + 16 * largest;
  } else {
    est.adamw_state = 2 * kFloat * total;
    est.optimizer_workspace = kFloat * total;  // AdamW's persistent scratch (sqrt(v) + eps)
  }
  const double adamw_scratch =
      t.optimizer == OptimizerKind::muon ? kFloat * (total - block_matrices) : kFloat * total;
  if (bf16) est.cast_weights = 2 * (block_matrices + vocab_rows * C);

  // --- activations of one micro-batch ----------------------------------------------------------
  const int64_t executed = shape.after.executed_blocks;
  const double per_block = blockActivationBytesPerToken(m, t.precision, o.attention);
  const double boundary = static_cast<double>(boundaryOperators(m, executed));
  // The state before the operator, its 1/rms and (unfused, without the CUDA kernel) its square.
  const double per_boundary = kFloat * C + kFloat + (o.cuda ? 0 : kFloat * C);
  const bool cpu_fused = o.attention == AttentionKernel::cpu_fused;
  const double norm_kept = cpu_fused ? kFloat * C + kFloat  // x, 1/rms
                                     : kFloat * C + kFloat + kFloat * C + gain * kFloat * C;  // x^2
  const double outside = (m.embed_norm ? norm_kept : 0)  // the raw embedding's norm
                         + norm_kept                     // the final norm
                         + e * C;                        // the head's input
  est.stretch = stretchFor(t, executed);
  if (est.stretch == 0) {
    est.activations =
        N * (static_cast<double>(executed) * per_block + boundary * per_boundary + outside);
  } else {
    const Stretches s = cutStretches(executed, est.stretch, anchorAfter(m));
    const double longest = static_cast<double>(s.longest);
    const double boundary_in_stretch =
        std::min(boundary, std::ceil(boundary * longest / static_cast<double>(executed)));
    est.activations =
        N * (static_cast<double>(s.count) * kFloat * C  // each stretch's kept input
             + (m.arch == Arch::pcc || m.boundary_every > 0 ? kFloat * C : 0)  // the anchor
             + longest * per_block + boundary_in_stretch * per_boundary + outside);
  }
  // The logits, then their log-softmax and its gradient (fused: the logits and their gradient).
  est.logits = N * (cpu_fused ? 2 * kFloat * vocab_rows : kFloat * vocab_rows + 2 * kFloat * V);
  const double attention_transient =
      o.attention == AttentionKernel::scores ? 2 * e * heads * T : 4 * e * C;
  const double mlp_transient = (up_rows + 2 * H) * e;
  est.transient = N * (std::max({attention_transient, mlp_transient, 7 * e * C}) + 3 * kFloat * C);

  // --- data and runtime ------------------------------------------------------------------------
  const double row_bytes = 8.0 * (T + 1);
  const double val_rows = config.data.kind == DataKind::shards
                              ? std::ceil(static_cast<double>(config.data.val_tokens) / T)
                              : static_cast<double>(t.eval_batches * t.batch_size);
  est.data = row_bytes * (val_rows + static_cast<double>(rows));
  est.runtime = o.runtime_bytes;

  // --- the four moments --------------------------------------------------------------------------
  const double resident =
      est.weights + est.gradients + est.optimizerState() + adamw_scratch + est.data + est.runtime;
  // The logits' buffers live from the loss until the head's backward has run, before any block's
  // backward allocates its transients: the two moments do not overlap.
  est.training_peak =
      resident + est.cast_weights + est.activations + std::max(est.logits, est.transient);
  est.optimizer_peak = resident - adamw_scratch + est.optimizer_workspace;
  // On the CPU a checkpoint is a clone of the weights plus the serialized archive (weights and
  // optimizer state) held in memory while it is written and hashed, about twice over.
  est.checkpoint_peak =
      o.cuda ? 0 : resident + est.weights + 2 * (est.weights + est.optimizerState());
  // Validation: no gradients kept, but the lens holds every residual state of a micro-batch and
  // decodes them a chunk of rows at a time.
  const double lens_rows = std::min(N, std::max(1.0, std::floor((1 << 24) / V)));
  est.validation_peak = resident +
                        N * (static_cast<double>(executed + 1) * kFloat * C +
                             std::max(attention_transient, mlp_transient) + 8 * V) +
                        16 * lens_rows * V;
  est.peak = est.training_peak;
  est.peak_phase = "training";
  const std::pair<double, const char*> others[] = {{est.optimizer_peak, "optimizer step"},
                                                   {est.checkpoint_peak, "checkpoint write"},
                                                   {est.validation_peak, "validation"}};
  for (const auto& [bytes, phase] : others)
    if (bytes > est.peak) {
      est.peak = bytes;
      est.peak_phase = phase;
    }
  return est;
}

std::string describeMemory(const MemoryEstimate& m) {
  char text[512];
  std::snprintf(text, sizeof text,
                "weights %.2f, gradients %.2f, optimizer state %.2f (AdamW %.2f, Muon %.2f), "
                "optimizer workspace %.2f, bf16 weight copies %.2f, activations %.2f, logits "
                "%.2f, transient %.2f, data %.2f, runtime %.2f GB; peak %.2f GB (%s)",
                gb(m.weights), gb(m.gradients), gb(m.optimizerState()), gb(m.adamw_state),
                gb(m.muon_state), gb(m.optimizer_workspace), gb(m.cast_weights), gb(m.activations),
                gb(m.logits), gb(m.transient), gb(m.data), gb(m.runtime), gb(m.peak), m.peak_phase);
  return text;
}

}  // namespace deepladder
