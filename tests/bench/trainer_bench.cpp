// Trainer speed, side by side in one run: the C++ training step (GPT + AdamW + clipping, as
// trainers/trainer.cpp runs it) against the same model trained by an eager PyTorch loop in
// Debian's /usr/bin/python3 (tests/bench/trainer_bench_python.py), same thread count, shape,
// batch and sequence length. Also the achieved FLOP/s (flopsPerToken x tokens/s) as a fraction
// of a large torch::mm on the same threads. Targets: C++ >= 1.3x Python at d64,
// >= 1.0x at d256; FLOP/s fraction >= 0.8 at d256.
//
//   trainer_bench [--threads N] [--seconds S] [--rounds R] [--only d64|d256] [--cpp-only]
//                 [--no-ops]
// Rounds alternate C++ and Python; the best round of each is reported (the machine is shared).
// "unfused" is the step with the plain LibTorch composition (trainers/fused_cpu_ops.h off),
// "fused" the default CPU path; both lines carry their gemm_fraction, and the same figures for
// the fastest single step (best_step_*: steadier than the mean when the machine is shared). Then,
// per shape, the per-op breakdown of both (tests/bench/op_breakdown.h: share of the step per
// category, forward and backward; "--no-ops" skips it, "--cpp-only" skips Python and
// without-oneDNN). "without-oneDNN" is the same C++ loop with every linear on torch::linear (the
// system BLAS), i.e. what the C++ frontend alone buys; mm_fraction is against torch::mm,
// gemm_fraction against the trainer's own GEMM.
#include <ATen/record_function.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/flop_model.h"
#include "tests/bench/op_breakdown.h"
#include "trainers/adamw.h"
#include "trainers/cpu_gemm.h"
#include "trainers/fused_cpu_ops.h"
#include "trainers/gpt.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace deepladder;

struct Shape {
  const char* label;
  int64_t d_model, n_layer, n_head, seq_len, batch;
};

double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The C++ training step (GPT + AdamW + clipping) on random tokens, scoped for op_breakdown.h.
struct CppStep {
  ModelConfig mc;
  int64_t batch;
  trainers::GPT model;
  trainers::AdamW optimizer;
  torch::Tensor data;  // (64, B, T+1)
  int64_t next = 0;

  CppStep(const ModelConfig& config, int64_t b)
      : mc(config),
        batch(b),
        model((torch::manual_seed(1), trainers::GPT(config))),
        optimizer(model->parameters(), trainers::AdamWOptions()),
        data(torch::randint(0, config.vocab_size, {64, b, config.seq_len + 1}, torch::kInt64)) {}

  void operator()() {
    auto tokens = data[next++ % 64];  // (B, T+1)
    torch::Tensor loss;
    {
      RECORD_FUNCTION("deepladder::forward", std::vector<c10::IValue>());
      loss = model->loss(tokens.narrow(1, 0, mc.seq_len), tokens.narrow(1, 1, mc.seq_len));
    }
    if (!std::isfinite(loss.item<double>())) std::abort();
    {
      RECORD_FUNCTION("deepladder::backward", std::vector<c10::IValue>());
      loss.backward();
    }
    RECORD_FUNCTION("deepladder::optimizer", std::vector<c10::IValue>());
    optimizer.clipGradNorm(1.0);
    optimizer.step(3e-3);
    optimizer.zeroGrad();
  }
};

// Tokens per second of the C++ training step for `budget_s` seconds (after 3 warm-up steps),
// with the fused CPU ops on or off: the mean over the budget, and the fastest single step's
// (`best`: on a shared machine, the figure other processes disturb least).
struct TokensPerSecond {
  double mean = 0, best = 0;
};
TokensPerSecond cppTokensPerSecond(const ModelConfig& mc, int64_t batch, double budget_s,
                                   bool fused) {
  trainers::setFusedCpuOpsEnabled(fused);
  CppStep step(mc, batch);
  for (int i = 0; i < 3; ++i) step();
  int64_t steps = 0;
  double fastest = 1e30;
  const auto start = Clock::now();
  while (seconds(start) < budget_s) {
    const auto step_start = Clock::now();
    step();
    fastest = std::min(fastest, seconds(step_start));
    ++steps;
  }
  trainers::setFusedCpuOpsEnabled(true);
  const double tokens = static_cast<double>(batch * mc.seq_len);
  return {steps * tokens / seconds(start), tokens / fastest};
}

// The per-op breakdown of a few steps, fused ops on or off.
bench::OpBreakdown cppBreakdown(const ModelConfig& mc, int64_t batch, bool fused) {
  trainers::setFusedCpuOpsEnabled(fused);
  CppStep step(mc, batch);
  for (int i = 0; i < 3; ++i) step();
  auto breakdown = bench::profileSteps(step, 5);
  trainers::setFusedCpuOpsEnabled(true);
  return breakdown;
}

double pythonTokensPerSecond(const Shape& s, int threads, double budget_s) {
  const std::string command =
      std::string("/usr/bin/python3 ") + DEEPLADDER_SOURCE_DIR +
      "/tests/bench/trainer_bench_python.py --d " + std::to_string(s.d_model) + " --layers " +
      std::to_string(s.n_layer) + " --heads " + std::to_string(s.n_head) + " --seq " +
      std::to_string(s.seq_len) + " --batch " + std::to_string(s.batch) + " --threads " +
      std::to_string(threads) + " --seconds " + std::to_string(budget_s);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return NAN;
  std::array<char, 512> line{};
  double value = NAN;
  while (fgets(line.data(), line.size(), pipe.get()))
    if (std::sscanf(line.data(), "python_tok_s=%lf", &value) == 1) break;
  return value;
}

// FLOP/s of a 2048 x 2048 fp32 matrix product on the current threads (best of several):
// torch::mm (the system BLAS), or the trainer's linear (oneDNN sgemm when compiled in).
double matmulFlopsPerSecond(bool trainer_linear) {
  const int64_t n = 2048;
  auto a = torch::randn({n, n});
  auto b = torch::randn({n, n});
  auto c = torch::empty({n, n});
  torch::NoGradGuard no_grad;
  auto product = [&] {
    if (trainer_linear)
      c = trainers::fastLinear(a, b);  // a b^T
    else
      torch::mm_out(c, a, b);
  };
  product();
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = Clock::now();
    product();
    best = std::max(best, 2.0 * n * n * n / seconds(start));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  double budget_s = 5.0;
  int rounds = 2;
  std::string only;        // --only d64: one shape
  bool python_too = true;  // --cpp-only: no Python, no without-oneDNN (for profiling)
  bool ops = true;         // --no-ops: no per-op breakdown
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--cpp-only")
      python_too = false;
    else if (flag == "--no-ops")
      ops = false;
    else if (flag == "--threads" && has_value)
      threads = std::atoi(argv[++i]);
    else if (flag == "--seconds" && has_value)
      budget_s = std::atof(argv[++i]);
    else if (flag == "--rounds" && has_value)
      rounds = std::atoi(argv[++i]);
    else if (flag == "--only" && has_value)
      only = argv[++i];
  }
  torch::set_num_threads(threads);
  const double mm = matmulFlopsPerSecond(false);
  const double gemm = matmulFlopsPerSecond(true);
  std::printf(
      "trainer mm2048 threads=%d torch_mm_gflop_s=%.2f trainer_gemm_gflop_s=%.2f (oneDNN %s)\n",
      threads, mm / 1e9, gemm / 1e9, trainers::fastCpuGemmCompiled() ? "on" : "off");
  // How OpenMP threads wait shapes every figure below (a lone scheduler slot runs with
  // GOMP_SPINCOUNT=300000, slots that share cores with OMP_WAIT_POLICY=PASSIVE).
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  std::printf("trainer openmp OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s\n", policy ? policy : "(unset)",
              spin ? spin : "(unset)");

  const Shape shapes[] = {{"d64", 64, 2, 4, 64, 16}, {"d256", 256, 6, 4, 256, 8}};
  for (const Shape& s : shapes) {
    if (!only.empty() && only != s.label) continue;
    ModelConfig mc;
    mc.vocab_size = 256;
    mc.d_model = s.d_model;
    mc.n_layer = s.n_layer;
    mc.n_head = s.n_head;
    mc.seq_len = s.seq_len;
    double unfused = 0, fused = 0, cpp_aten = 0, python = 0;
    double best_step[2] = {0, 0};  // unfused, fused
    for (int round = 0; round < rounds; ++round) {
      const TokensPerSecond off = cppTokensPerSecond(mc, s.batch, budget_s, false);
      const TokensPerSecond on = cppTokensPerSecond(mc, s.batch, budget_s, true);
      unfused = std::max(unfused, off.mean);
      fused = std::max(fused, on.mean);
      best_step[0] = std::max(best_step[0], off.best);
      best_step[1] = std::max(best_step[1], on.best);
      if (!python_too) continue;
      python = std::max(python, pythonTokensPerSecond(s, threads, budget_s));
      if (trainers::fastCpuGemmCompiled()) {  // the same C++ loop with torch::linear everywhere
        trainers::setFastCpuGemmEnabled(false);
        cpp_aten = std::max(cpp_aten, cppTokensPerSecond(mc, s.batch, budget_s, true).mean);
        trainers::setFastCpuGemmEnabled(true);
      }
    }
    for (const bool on : {false, true}) {
      const double cpp = on ? fused : unfused;
      const double achieved = flopsPerToken(mc) * cpp;
      std::printf(
          "trainer %s %s layers=%lld seq=%lld batch=%lld threads=%d cpp_tok_s=%.0f "
          "python_tok_s=%.0f ratio=%.2f cpp_gflop_s=%.2f mm_fraction=%.2f gemm_fraction=%.2f "
          "best_step_tok_s=%.0f best_step_gemm_fraction=%.2f\n",
          s.label, on ? "fused  " : "unfused", static_cast<long long>(s.n_layer),
          static_cast<long long>(s.seq_len), static_cast<long long>(s.batch), threads, cpp, python,
          cpp / python, achieved / 1e9, achieved / mm, achieved / gemm, best_step[on],
          flopsPerToken(mc) * best_step[on] / gemm);
    }
    std::printf("trainer %s fused/unfused speed-up=%.2fx\n", s.label, fused / unfused);
    if (cpp_aten > 0)
      std::printf(
          "trainer %s without-oneDNN cpp_tok_s=%.0f python_tok_s=%.0f ratio=%.2f "
          "mm_fraction=%.2f\n",
          s.label, cpp_aten, python, cpp_aten / python, flopsPerToken(mc) * cpp_aten / mm);
    if (ops) {
      const std::string unfused_label = std::string(s.label) + " unfused";
      const std::string fused_label = std::string(s.label) + " fused";
      bench::printBreakdown(unfused_label.c_str(), cppBreakdown(mc, s.batch, false));
      bench::printBreakdown(fused_label.c_str(), cppBreakdown(mc, s.batch, true));
    }
    std::fflush(stdout);
  }
  return 0;
}
