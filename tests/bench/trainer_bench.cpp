// Trainer speed, side by side in one run: the C++ training step (GPT + AdamW + clipping, as
// trainers/trainer.cpp runs it) against the same model trained by an eager PyTorch loop in
// Debian's /usr/bin/python3 (tests/bench/trainer_bench_python.py), same thread count, shape,
// batch and sequence length. Also the achieved FLOP/s (flopsPerToken x tokens/s) as a fraction
// of a large torch::mm on the same threads. Targets: C++ >= 1.3x Python at d64,
// >= 1.0x at d256; FLOP/s fraction >= 0.8 at d256.
//
//   trainer_bench [--threads N] [--seconds S] [--rounds R]
// Rounds alternate C++ and Python; the best round of each is reported (the machine is shared).
// "without-oneDNN" is the same C++ loop with every linear on torch::linear (the system BLAS),
// i.e. what the C++ frontend alone buys; mm_fraction is against torch::mm, gemm_fraction
// against the trainer's own GEMM.
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
#include "trainers/adamw.h"
#include "trainers/cpu_gemm.h"
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

// Tokens per second of the C++ training step for `budget_s` seconds (after 3 warm-up steps).
double cppTokensPerSecond(const ModelConfig& mc, int64_t batch, double budget_s) {
  torch::manual_seed(1);
  trainers::GPT model(mc);
  trainers::AdamWOptions options;
  trainers::AdamW optimizer(model->parameters(), options);
  auto data = torch::randint(0, mc.vocab_size, {64, batch, mc.seq_len + 1}, torch::kInt64);
  auto step = [&](int64_t i) {
    auto tokens = data[i % 64];  // (B, T+1)
    auto loss = model->loss(tokens.narrow(1, 0, mc.seq_len), tokens.narrow(1, 1, mc.seq_len));
    if (!std::isfinite(loss.item<double>())) std::abort();
    loss.backward();
    optimizer.clipGradNorm(1.0);
    optimizer.step(3e-3);
    optimizer.zeroGrad();
  };
  for (int i = 0; i < 3; ++i) step(i);
  int64_t steps = 0;
  const auto start = Clock::now();
  while (seconds(start) < budget_s) step(steps++);
  return static_cast<double>(steps * batch * mc.seq_len) / seconds(start);
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
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (flag == "--seconds")
      budget_s = std::atof(argv[i + 1]);
    else if (flag == "--rounds")
      rounds = std::atoi(argv[i + 1]);
  }
  torch::set_num_threads(threads);
  const double mm = matmulFlopsPerSecond(false);
  const double gemm = matmulFlopsPerSecond(true);
  std::printf(
      "trainer mm2048 threads=%d torch_mm_gflop_s=%.2f trainer_gemm_gflop_s=%.2f (oneDNN %s)\n",
      threads, mm / 1e9, gemm / 1e9, trainers::fastCpuGemmCompiled() ? "on" : "off");

  const Shape shapes[] = {{"d64", 64, 2, 4, 64, 16}, {"d256", 256, 6, 4, 256, 8}};
  for (const Shape& s : shapes) {
    ModelConfig mc;
    mc.vocab_size = 256;
    mc.d_model = s.d_model;
    mc.n_layer = s.n_layer;
    mc.n_head = s.n_head;
    mc.seq_len = s.seq_len;
    double cpp = 0, cpp_aten = 0, python = 0;
    for (int round = 0; round < rounds; ++round) {
      cpp = std::max(cpp, cppTokensPerSecond(mc, s.batch, budget_s));
      python = std::max(python, pythonTokensPerSecond(s, threads, budget_s));
      if (trainers::fastCpuGemmCompiled()) {  // the same C++ loop with torch::linear everywhere
        trainers::setFastCpuGemmEnabled(false);
        cpp_aten = std::max(cpp_aten, cppTokensPerSecond(mc, s.batch, budget_s));
        trainers::setFastCpuGemmEnabled(true);
      }
    }
    const double achieved = flopsPerToken(mc) * cpp;
    std::printf(
        "trainer %s layers=%lld seq=%lld batch=%lld threads=%d cpp_tok_s=%.0f python_tok_s=%.0f "
        "ratio=%.2f cpp_gflop_s=%.2f mm_fraction=%.2f gemm_fraction=%.2f\n",
        s.label, static_cast<long long>(s.n_layer), static_cast<long long>(s.seq_len),
        static_cast<long long>(s.batch), threads, cpp, python, cpp / python, achieved / 1e9,
        achieved / mm, achieved / gemm);
    if (cpp_aten > 0)
      std::printf(
          "trainer %s without-oneDNN cpp_tok_s=%.0f python_tok_s=%.0f ratio=%.2f "
          "mm_fraction=%.2f\n",
          s.label, cpp_aten, python, cpp_aten / python, flopsPerToken(mc) * cpp_aten / mm);
    std::fflush(stdout);
  }
  return 0;
}
