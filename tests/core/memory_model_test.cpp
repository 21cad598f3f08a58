// The memory model (core/memory_model.h) against hand counts for a small config: vocab 16,
// d_model 8, 2 layers, 2 heads, seq 4, GELU (hidden 32), tied embeddings with norm gains, AdamW,
// batch 2, fp32 on the CPU. Every number below is worked out by hand from the header's terms;
// then the relations the plan relies on: checkpointing and smaller micro-batches shrink the
// activations, bf16 shrinks them and adds the weight copies, Muon keeps one moment per matrix.
#include "core/memory_model.h"

#include <gtest/gtest.h>

#include "core/flop_model.h"

using namespace deepladder;

namespace {

RunConfig handConfig() {
  RunConfig c;
  c.model.vocab_size = 16;
  c.model.d_model = 8;
  c.model.n_layer = 2;
  c.model.n_head = 2;
  c.model.seq_len = 4;
  c.train.batch_size = 2;
  return c;  // gelu, tied, norm gains, adamw, fp32, cpu, builtin data, eval_batches 8
}

}  // namespace

TEST(MemoryModel, HandCountsForASmallConfig) {
  const RunConfig c = handConfig();
  // The LibTorch composition (what the CPU runs under bf16 autocast).
  MemoryModelOptions o = memoryModelOptionsFor(c);
  EXPECT_FALSE(o.cuda);
  o.attention = AttentionKernel::scores;
  const double runtime = o.runtime_bytes;
  // Parameters: block 4*8^2 + 2*8*32 + 2*8 gains = 784, x 2 = 1568; embedding 16*8 = 128 (tied
  // head); final norm 8: 1704.
  ASSERT_EQ(countParameters(c.model).total, 1704);
  // Per token per block, bytes: input 32, two 1/rms 8, the norms' x^2 2*32, gains' x/rms 2*32,
  // qkv/up inputs 2*32, h 32, proj input 32, q k v copies 3*32, probabilities 4*2*4 = 32, GELU
  // in/out 2*4*32 = 256.
  EXPECT_DOUBLE_EQ(blockActivationBytesPerToken(c.model, Precision::fp32, AttentionKernel::scores),
                   680);
  const MemoryEstimate m = estimateMemory(c, 0, o);
  EXPECT_EQ(m.micro_batch, 2);
  EXPECT_DOUBLE_EQ(m.weights, 4 * 1704);
  EXPECT_DOUBLE_EQ(m.gradients, 4 * 1704);
  EXPECT_DOUBLE_EQ(m.adamw_state, 8 * 1704);  // two moments
  EXPECT_DOUBLE_EQ(m.muon_state, 0);
  EXPECT_DOUBLE_EQ(m.optimizer_workspace, 4 * 1704);  // the scratch sqrt(v) + eps
  EXPECT_DOUBLE_EQ(m.cast_weights, 0);
  // N = 2 rows x 4 = 8 tokens; outside the blocks: final norm input 32 + 1/rms 4 + x^2 32 + its
  // gain's x/rms 32 + the head's input 32 = 132.
  EXPECT_DOUBLE_EQ(m.activations, 8 * (2 * 680 + 132));
  EXPECT_DOUBLE_EQ(m.logits, 8 * 12 * 16);  // logits, log-softmax, gradient
  // Transient: max(scores 2*4*2*4 = 64, GELU 4*(32 + 64) = 384, qkv 7*4*8 = 224) + 3 * 32.
  EXPECT_DOUBLE_EQ(m.transient, 8 * (384 + 96));
  EXPECT_DOUBLE_EQ(m.data, 8 * 5 * (8 * 2 + 2));  // 16 validation rows + 2 training rows
  const double resident = 4 * 1704 * 2 + 8 * 1704 + 4 * 1704 + 720 + runtime;
  // The logits (1536) are freed before the blocks' backward needs its transients (3840).
  EXPECT_DOUBLE_EQ(m.training_peak, resident + 11936 + 3840);
  EXPECT_DOUBLE_EQ(m.optimizer_peak, resident);
  // A checkpoint: weights cloned, and the serialized archive (weights + moments) twice over.
  EXPECT_DOUBLE_EQ(m.checkpoint_peak, resident + 4 * 1704 + 2 * (4 * 1704 + 8 * 1704));
  // Validation: 3 residual states of 32 bytes, GELU transient 384, 8 * 16 for the loss, plus the
  // lens chunk of 8 rows x 16 x 16.
  EXPECT_DOUBLE_EQ(m.validation_peak, resident + 8 * (3 * 32 + 384 + 128) + 16 * 8 * 16);
  EXPECT_DOUBLE_EQ(m.peak, m.checkpoint_peak);
  EXPECT_STREQ(m.peak_phase, "checkpoint write");

  // Checkpointing every block: two kept inputs of 32 bytes and one block recomputed.
  RunConfig blocks = c;
  blocks.train.activation_checkpointing = ActivationCheckpointing::blocks;
  const MemoryEstimate b = estimateMemory(blocks, 0, o);
  EXPECT_EQ(b.stretch, 1);
  EXPECT_DOUBLE_EQ(b.activations, 8 * (2 * 32 + 680 + 132));
}

TEST(MemoryModel, CheckpointingMicroBatchesAndPrecisionMoveTheRightTerms) {
  RunConfig c;
  c.model.vocab_size = 256;
  c.model.d_model = 64;
  c.model.n_layer = 64;
  c.model.n_head = 4;
  c.model.seq_len = 256;
  c.train.batch_size = 16;
  const MemoryModelOptions o = memoryModelOptionsFor(c);
  const MemoryEstimate none = estimateMemory(c, 0, o);
  const MemoryEstimate quarter = estimateMemory(c, 4, o);
  EXPECT_NEAR(quarter.activations, none.activations / 4, 1e-6 * none.activations);
  EXPECT_EQ(quarter.weights, none.weights);
  c.train.activation_checkpointing = ActivationCheckpointing::every_k;
  const MemoryEstimate sqrt_l = estimateMemory(c, 0, o);
  EXPECT_EQ(sqrt_l.stretch, 8);
  EXPECT_LT(sqrt_l.activations, none.activations / 4);
  c.train.activation_checkpointing = ActivationCheckpointing::blocks;
  const MemoryEstimate blocks = estimateMemory(c, 0, o);
  EXPECT_LT(blocks.activations, none.activations / 4);
  c.train.activation_checkpointing = ActivationCheckpointing::none;
  c.train.precision = Precision::bf16;
  const MemoryEstimate bf16 = estimateMemory(c, 0, o);
  EXPECT_LT(bf16.activations, none.activations);
  EXPECT_GT(bf16.cast_weights, 0);
  EXPECT_EQ(bf16.weights, none.weights);  // master weights stay float32
  EXPECT_EQ(bf16.adamw_state, none.adamw_state);

  c.train.precision = Precision::fp32;
  c.train.optimizer = OptimizerKind::muon;
  c.model.tie_embeddings = false;
  const MemoryEstimate muon = estimateMemory(c, 0, o);
  const double matrices = 64.0 * (4 * 64 * 64 + 2 * 64 * 256);
  EXPECT_DOUBLE_EQ(muon.muon_state, 4 * matrices);  // one momentum
  const double rest = static_cast<double>(countParameters(c.model).total) - matrices;
  EXPECT_DOUBLE_EQ(muon.adamw_state, 8 * rest);  // embedding, head, gains: two moments

  // A CUDA run: fused attention (no T x T probabilities) and no host checkpoint copies.
  c.train.device = "cuda";
  const MemoryModelOptions cuda = memoryModelOptionsFor(c);
  EXPECT_TRUE(cuda.cuda);
  EXPECT_EQ(cuda.attention, AttentionKernel::fused);
  EXPECT_EQ(estimateMemory(c, 0, cuda).checkpoint_peak, 0);
}

TEST(MemoryModel, HandCountsOfTheFusedCpuOps) {
  RunConfig c = handConfig();
  const MemoryModelOptions o = memoryModelOptionsFor(c);
  EXPECT_EQ(o.attention, AttentionKernel::cpu_fused);  // fp32 on the CPU
  // Per token per block, bytes: input 32, two 1/rms 8, qkv/up inputs 2*32, h 32, proj input 32,
  // the qkv projection's output 3*32, rotated q k 2*32, attention output 32 and its log-sum-exp
  // 4*2, GELU in/out 2*4*32 = 256: no x^2, x/rms or (T,T) probabilities.
  EXPECT_DOUBLE_EQ(
      blockActivationBytesPerToken(c.model, Precision::fp32, AttentionKernel::cpu_fused), 624);
  const MemoryEstimate m = estimateMemory(c, 0, o);
  // Outside the blocks: the final norm's input 32 and 1/rms 4, the head's input 32.
  EXPECT_DOUBLE_EQ(m.activations, 8 * (2 * 624 + 68));
  EXPECT_DOUBLE_EQ(m.logits, 8 * 2 * 4 * 16);  // the logits once, and their gradient
  // Under bf16 autocast the CPU runs the composition.
  c.train.precision = Precision::bf16;
  EXPECT_EQ(memoryModelOptionsFor(c).attention, AttentionKernel::scores);
}

TEST(MemoryModel, GrowthCountsTheGrownModel) {
  RunConfig c = handConfig();
  c.model.n_layer = 6;
  c.model.arch = Arch::pcc;
  c.model.passes = 2;
  c.model.grow_passes = 4;
  c.model.core_mode = CoreMode::untied;
  MemoryModelOptions o = memoryModelOptionsFor(c);
  o.attention = AttentionKernel::scores;
  const MemoryEstimate m = estimateMemory(c, 0, o);
  EXPECT_DOUBLE_EQ(m.weights,
                   4.0 * static_cast<double>(countParameters(c.model).total_after_growth));
  // 2 + 4 x 2 + 2 = 12 executed blocks after growth, plus the 4 boundary operators' inputs, 1/rms
  // and squares (the CPU's unfused operator).
  const double per_block =
      blockActivationBytesPerToken(c.model, Precision::fp32, AttentionKernel::scores);
  EXPECT_DOUBLE_EQ(m.activations, 8 * (12 * per_block + 4 * (32 + 4 + 32) + 132));
}
