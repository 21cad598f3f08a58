// FLOP audit of a training step, for tests/bench/trainer_bench.cpp: the FLOPs the trainer's step
// executes per op category (counted by hand from the shapes, one formula per category, below),
// next to the time the profiler charges to that category (op_breakdown.h), and the GEMM peak of
// the machine measured by two libraries besides the trainer's own (gemm_peak.h). What it is for:
// a "fraction of the GEMM peak" is only as true as its numerator (FLOPs actually executed, not the
// model's nominal count) and its denominator (the best GEMM this machine runs, not one size on one
// library).
//
// Counted (per step of B sequences of T tokens, N = B T; d, L blocks, H heads of D = d/H, MLP
// hidden h, vocabulary V rows of the head):
//   linear        every x W^T: 2 N K M forward, 4 N K M backward (dX and dW) for each (K -> M):
//                 per block q,k,v,o (4 d^2) and the MLP (2 d h gelu, 3 d h swiglu), plus the head
//                 (d V)
//   attention     fused kernel (trainers/causal_attention_cpu.h): 64-row tiles on and below the
//                 diagonal (diagonal tiles at their causal half for heads up to 32, whose tile
//                 products skip the masked zeros); forward 2 products (Q K^T, P V), backward 5 (the
//                 score tile recomputed, dV, dP, dQ, dK): 2 D per score each. The composition
//                 (unfused) computes all T x T scores: 2 products forward, 4 backward.
//   rms_norm, rotary, mlp_act, cross_entropy, optimizer: elementwise, at nominal FLOPs per
//                 element (listed in flop_audit.cpp); small next to the products, shown for their
//                 time.
#pragma once

#include <string>
#include <vector>

#include "core/run_config.h"
#include "tests/bench/op_breakdown.h"

namespace deepladder::bench {

struct OpFlops {
  std::string op;        // an op_breakdown category ("linear", "attention", ...)
  double forward = 0;    // executed FLOPs per step, forward
  double backward = 0;   // executed FLOPs per step, backward (and the optimizer's)
  bool is_gemm = false;  // matrix products (what the GEMM peak bounds)
};

// Executed FLOPs of one training step (forward, backward, AdamW step) of `model` on `batch`
// sequences, with the fused CPU ops (`fused`) or the LibTorch composition.
std::vector<OpFlops> executedFlopsPerStep(const ModelConfig& model, int64_t batch, bool fused);

double totalFlops(const std::vector<OpFlops>& ops);

// One line per op: executed GFLOP per step, profiled ms per step, GFLOP/s; then the totals.
void printFlopAudit(const char* label, const std::vector<OpFlops>& ops,
                    const OpBreakdown& breakdown);

}  // namespace deepladder::bench
