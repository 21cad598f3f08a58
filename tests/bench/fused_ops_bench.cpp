// Per-op speed of the fused fp32 CPU kernels (trainers/*_cpu.h) at trainer_bench's shapes: each
// op's forward + backward alone, fused against the LibTorch composition it replaces, in one run
// (best of several repetitions; the machine is shared). Complements trainer_bench's per-op
// profile, whose profiler overhead inflates small ops. Built against LibTorch 2.x it also times
// scaled_dot_product_attention against the fused kernel (attention_sdpa_*: "composition" is SDPA),
// the measurement behind trainers/attention.cpp's choice of the fused kernel on the CPU.
//
//   fused_ops_bench [--threads N] [--reps R] [--only NAME] [--smoke]
// Goal (judged in smoke mode too, where reps = 5): each fused op's output agrees with the
// composition's to a relative error of 1e-5 (no speed goal: the figures are the speed-ups).
#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

#include "tests/bench/bench_goals.h"
#include "trainers/causal_attention_cpu.h"
#include "trainers/cross_entropy_cpu.h"
#include "trainers/fused_cpu_ops.h"
#include "trainers/rms_norm.h"
#include "trainers/rotary.h"

namespace {

using namespace deepladder::trainers;
using Clock = std::chrono::steady_clock;

int reps = 200;
std::string only;  // --only NAME: that op alone
deepladder::bench::Goals* goals = nullptr;

// Best microseconds of forward + backward of each of two ops, their repetitions interleaved so
// that a slow spell of the machine (or one op leaving the threads in a worse state) falls on
// both: an op maps the inputs to an output, the backward pushes a fixed random gradient through
// it.
std::pair<double, double> timeOps(const std::function<torch::Tensor()>& first,
                                  const std::function<torch::Tensor()>& second) {
  const auto grad = torch::randn_like(first());
  double best[2] = {1e30, 1e30};
  for (int rep = 0; rep < reps + 3; ++rep) {
    for (int which = 0; which < 2; ++which) {
      const auto start = Clock::now();
      auto y = which == 0 ? first() : second();
      y.backward(grad);
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
      if (rep >= 3) best[which] = std::min(best[which], us);
    }
  }
  return {best[0], best[1]};
}

void report(const char* name, const std::function<torch::Tensor()>& composition,
            const std::function<torch::Tensor()>& fused) {
  if (!only.empty() && only != name) return;
  const auto [before, after] = timeOps(composition, fused);
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor a = composition().to(torch::kFloat64), b = fused().to(torch::kFloat64);
    const double rel = ((a - b).norm() / b.norm().clamp_min(1e-30)).item<double>();
    goals->atMost(std::string(name) + " fused vs composition, relative error", rel, 1e-5, "",
                  deepladder::bench::GoalKind::kCorrectness);
  }
  std::printf("fused_op %-22s composition_us=%9.1f fused_us=%9.1f speed-up=%.2fx\n", name, before,
              after, before / after);
  std::fflush(stdout);
}

torch::Tensor leaf(at::IntArrayRef sizes) {
  return torch::randn(sizes).requires_grad_(true);
}

void attention(const char* name, int64_t B, int64_t H, int64_t T, int64_t D) {
  auto q = leaf({B, H, T, D}), k = leaf({B, H, T, D}), v = leaf({B, H, T, D});
  const auto bias = causalBias(T);
  report(
      name, [&] { return causalAttentionComposition(q, k, v, bias); },
      [&] { return causalAttentionCpu(q, k, v); });
}

#if TORCH_VERSION_MAJOR >= 2
void attentionAgainstSdpa(const char* name, int64_t B, int64_t H, int64_t T, int64_t D) {
  auto q = leaf({B, H, T, D}), k = leaf({B, H, T, D}), v = leaf({B, H, T, D});
  report(
      name,
      [&] {
        return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0,
                                                /*is_causal=*/true);
      },
      [&] { return causalAttentionCpu(q, k, v); });
}
#endif

// A module whose forward takes the fused path when the switch is on.
void switched(const char* name, const std::function<torch::Tensor()>& op) {
  report(
      name,
      [&] {
        setFusedCpuOpsEnabled(false);
        auto y = op();
        setFusedCpuOpsEnabled(true);
        return y;
      },
      op);
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals bench_goals(deepladder::bench::takeSmokeFlag(argc, argv));
  goals = &bench_goals;
  if (bench_goals.smoke()) reps = 5;
  int threads = 1;
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--threads") threads = std::atoi(argv[++i]);
    if (flag == "--reps") reps = std::atoi(argv[++i]);
    if (flag == "--only") only = argv[++i];
  }
  torch::set_num_threads(threads);
  torch::manual_seed(0);
  std::printf("fused_ops threads=%d reps=%d\n", threads, reps);

  attention("attention_d64", 16, 4, 64, 16);
  attention("attention_h8", 16, 7, 64, 8);  // the quick ladder's d7: heads of 8 (4 x 8 blocks)
  attention("attention_d256", 8, 4, 256, 64);
#if TORCH_VERSION_MAJOR >= 2
  attentionAgainstSdpa("attention_sdpa_d64", 16, 4, 64, 16);
  attentionAgainstSdpa("attention_sdpa_d256", 8, 4, 256, 64);
#endif

  RMSNorm norm(64, 1e-6, true);
  auto x64 = leaf({16, 64, 64});
  switched("rms_norm_d64", [&] { return norm(x64); });

  Rotary rotary(16, 64, 10000.0);
  auto qk = leaf({16, 64, 2, 4, 16});
  switched("rotary_d64", [&] { return rotary(qk.permute({2, 0, 3, 1, 4})); });

  auto logits = leaf({1024, 256});
  const auto targets = torch::randint(0, 256, {1024}, torch::kInt64);
  report(
      "cross_entropy_d64", [&] { return torch::nn::functional::cross_entropy(logits, targets); },
      [&] { return crossEntropyCpu(logits, targets, 256, 1.0); });
  return bench_goals.exitCode();
}
