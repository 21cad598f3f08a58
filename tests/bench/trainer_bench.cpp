// Trainer speed, side by side in one run: the C++ training step (GPT + AdamW + clipping, as
// trainers/trainer.cpp runs it) against the same model trained by an eager PyTorch loop in
// Debian's /usr/bin/python3 (tests/bench/trainer_bench_python.py), same thread count, shape,
// batch and sequence length. Also the achieved FLOP/s as a fraction of the machine's GEMM peak.
// Goals (bench_goals.h, exit 1 on a miss): C++ >= 1.3x Python at d64, >= 1.0x at d256; FLOP/s
// fraction >= 0.8 at d256; and (judged in smoke mode too) no fraction above 1: a step cannot
// beat the best GEMM, so a fraction over 1 means a miscount.
//
//   trainer_bench [--threads N] [--seconds S] [--rounds R] [--only d64|d256] [--cpp-only]
//                 [--no-ops] [--smoke] [--compare-omp-wait]
// --compare-omp-wait: runs this program twice on d64 (C++ only), once with OMP_WAIT_POLICY=PASSIVE
// (what workers that share cores get) and once with GOMP_SPINCOUNT=300000 (a lone slot's worker),
// alternating --rounds times, and prints the fused tokens/s of both and their ratio: the figure
// docs/ladders.md quotes.
// Rounds alternate C++ and Python; the best round of each is reported (the machine is shared).
// "unfused" is the step with the plain LibTorch composition (trainers/fused_cpu_ops.h off),
// "fused" the default CPU path; the same figures for the fastest single step (best_step_*:
// steadier than the mean when the machine is shared). Then, per shape, the per-op breakdown of
// both (tests/bench/op_breakdown.h: share of the step per category, forward and backward) and the
// FLOP audit (tests/bench/flop_audit.h: executed FLOPs per op, profiled time, GFLOP/s); "--no-ops"
// skips them, "--cpp-only" skips Python and without-oneDNN. "without-oneDNN" is the same C++ loop
// with every linear on torch::linear (the system BLAS), i.e. what the C++ frontend alone buys.
// The fractions: the peak is the best float32 GEMM rate measured here by any of the trainer's own
// GEMM (oneDNN), torch::mm (the system BLAS), Eigen and numpy, over square sizes 256..2048
// (gemm_peak.h); gemm_fraction = FLOPs the step executes (flop_audit.h) per second / peak;
// model_fraction = the model's nominal FLOPs (core/flop_model.h: 6 N plus causal attention, the
// ladder's compute axis) per second / peak. Before the audit, gemm_fraction was the nominal count
// over the trainer's own 2048 x 2048 GEMM alone (see the FLOP audit in docs/gpu.md).
// --smoke: d64 only, 0.3 s, one round, C++ only, peaks at 256 and 512 (seconds; timing goals not
// judged).
#include <ATen/record_function.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "core/flop_model.h"
#include "tests/bench/bench_goals.h"
#include "tests/bench/flop_audit.h"
#include "tests/bench/gemm_peak.h"
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

// FLOP/s of an n x n fp32 matrix product on the current threads (best of several): torch::mm (the
// system BLAS), or the trainer's linear (oneDNN sgemm when compiled in).
double matmulFlopsPerSecond(bool trainer_linear, int64_t n = 2048) {
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
  const int reps = n <= 512 ? 20 : 5;
  for (int rep = 0; rep < reps; ++rep) {
    const auto start = Clock::now();
    product();
    best = std::max(best, 2.0 * n * n * n / seconds(start));
  }
  return best;
}

// The fused d64 tokens/s of this program run again under `env_prefix` (an `env ...` command).
double d64TokensPerSecondUnder(const std::string& env_prefix, int threads, double budget_s) {
  const std::string command = env_prefix + " /proc/" + std::to_string(::getpid()) +
                              "/exe --only d64 --cpp-only --no-ops --rounds 1 --threads " +
                              std::to_string(threads) + " --seconds " + std::to_string(budget_s);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return NAN;
  std::array<char, 1024> line{};
  double value = NAN;
  while (fgets(line.data(), line.size(), pipe.get())) {
    const char* found = std::strstr(line.data(), "trainer d64 fused ");
    const char* field = found ? std::strstr(found, "cpp_tok_s=") : nullptr;
    if (field) value = std::atof(field + std::strlen("cpp_tok_s="));
  }
  return value;
}

// --compare-omp-wait (see the header comment).
void compareOmpWait(int threads, double budget_s, int rounds) {
  double passive = 0, spinning = 0;
  for (int round = 0; round < rounds; ++round) {
    passive =
        std::max(passive, d64TokensPerSecondUnder("env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=PASSIVE",
                                                  threads, budget_s));
    spinning = std::max(
        spinning,
        d64TokensPerSecondUnder("env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=300000", threads, budget_s));
  }
  std::printf(
      "trainer d64 openmp wait, threads=%d, best of %d rounds of %.1f s: OMP_WAIT_POLICY=PASSIVE "
      "cpp_tok_s=%.0f, GOMP_SPINCOUNT=300000 cpp_tok_s=%.0f, spinning/passive=%.2fx\n",
      threads, rounds, budget_s, passive, spinning, spinning / passive);
}

}  // namespace

int main(int argc, char** argv) {
  bench::Goals goals(bench::takeSmokeFlag(argc, argv));
  int threads = 2;
  double budget_s = goals.smoke() ? 0.3 : 5.0;
  int rounds = goals.smoke() ? 1 : 2;
  std::string only = goals.smoke() ? "d64" : "";  // --only d64: one shape
  bool python_too = !goals.smoke();  // --cpp-only: no Python, no without-oneDNN (for profiling)
  bool ops = true;                   // --no-ops: no per-op breakdown
  bool compare_omp_wait = false;     // --compare-omp-wait
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--cpp-only")
      python_too = false;
    else if (flag == "--compare-omp-wait")
      compare_omp_wait = true;
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
  if (compare_omp_wait) {
    compareOmpWait(threads, budget_s, rounds);
    return goals.exitCode();
  }
  torch::set_num_threads(threads);
  // The GEMM peak: every library over square sizes; the best rate any reaches.
  const std::vector<int64_t> sizes =
      goals.smoke() ? std::vector<int64_t>{256, 512} : std::vector<int64_t>{256, 512, 1024, 2048};
  std::vector<bench::GemmRate> trainer_rates, mm_rates;
  for (const int64_t n : sizes) {
    trainer_rates.push_back({n, matmulFlopsPerSecond(true, n)});
    mm_rates.push_back({n, matmulFlopsPerSecond(false, n)});
  }
  const auto eigen_rates = bench::eigenGemmRates(sizes, threads);
  const auto numpy_rates = bench::numpyGemmRates(sizes, threads);
  auto print_rates = [&](const char* library, const std::vector<bench::GemmRate>& rates) {
    std::printf("trainer gemm_peak %-26s", library);
    for (const auto& r : rates)
      std::printf(" n%lld=%.2f", static_cast<long long>(r.n), r.flops_per_s / 1e9);
    std::printf(" GFLOP/s%s\n", rates.empty() ? " (not available)" : "");
  };
  std::printf("trainer gemm_peak float32 C = A B, threads=%d, best of repetitions per size\n",
              threads);
  print_rates(trainers::fastCpuGemmCompiled() ? "trainer_gemm (oneDNN)" : "trainer_gemm",
              trainer_rates);
  print_rates("torch_mm (system BLAS)", mm_rates);
  print_rates("eigen", eigen_rates);
  print_rates("numpy (system BLAS)", numpy_rates);
  const double mm = bench::bestRate(mm_rates);
  const double gemm = bench::bestRate(trainer_rates);
  const double peak =
      std::max({gemm, mm, bench::bestRate(eigen_rates), bench::bestRate(numpy_rates)});
  std::printf(
      "trainer mm threads=%d torch_mm_gflop_s=%.2f trainer_gemm_gflop_s=%.2f peak_gflop_s=%.2f "
      "(oneDNN %s; best over sizes)\n",
      threads, mm / 1e9, gemm / 1e9, peak / 1e9, trainers::fastCpuGemmCompiled() ? "on" : "off");
  // How OpenMP threads wait shapes every figure below (a lone scheduler slot runs with
  // GOMP_SPINCOUNT=300000, slots that share cores with OMP_WAIT_POLICY=PASSIVE).
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  std::printf("trainer openmp OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s\n", policy ? policy : "(unset)",
              spin ? spin : "(unset)");

  const Shape shapes[] = {{"d64", 64, 2, 4, 64, 16}, {"d256", 256, 6, 4, 256, 8}};
  double worst_fraction = 0;
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
      const double model_rate = flopsPerToken(mc) * cpp;
      const double executed_per_token =
          bench::totalFlops(bench::executedFlopsPerStep(mc, s.batch, on)) /
          static_cast<double>(s.batch * s.seq_len);
      const double executed_rate = executed_per_token * cpp;
      const double best_rate = executed_per_token * best_step[on];
      std::printf(
          "trainer %s %s layers=%lld seq=%lld batch=%lld threads=%d cpp_tok_s=%.0f "
          "python_tok_s=%.0f ratio=%.2f executed_gflop_s=%.2f model_gflop_s=%.2f "
          "gemm_fraction=%.2f model_fraction=%.2f best_step_tok_s=%.0f "
          "best_step_gemm_fraction=%.2f (executed/model FLOPs %.3f)\n",
          s.label, on ? "fused  " : "unfused", static_cast<long long>(s.n_layer),
          static_cast<long long>(s.seq_len), static_cast<long long>(s.batch), threads, cpp, python,
          cpp / python, executed_rate / 1e9, model_rate / 1e9, executed_rate / peak,
          model_rate / peak, best_step[on], best_rate / peak,
          executed_per_token / flopsPerToken(mc));
      worst_fraction = std::max({worst_fraction, executed_rate / peak, best_rate / peak});
      if (on && std::string(s.label) == "d256")
        goals.atLeast("d256 fused gemm_fraction (executed FLOP/s / GEMM peak)",
                      executed_rate / peak, 0.8, "");
    }
    if (python_too)
      goals.atLeast(std::string(s.label) + " C++ tokens/s / Python's", fused / python,
                    std::string(s.label) == "d64" ? 1.3 : 1.0, "x");
    std::printf("trainer %s fused/unfused speed-up=%.2fx\n", s.label, fused / unfused);
    if (cpp_aten > 0)
      std::printf(
          "trainer %s without-oneDNN cpp_tok_s=%.0f python_tok_s=%.0f ratio=%.2f "
          "mm_fraction=%.2f\n",
          s.label, cpp_aten, python, cpp_aten / python, flopsPerToken(mc) * cpp_aten / mm);
    if (ops) {
      const std::string unfused_label = std::string(s.label) + " unfused";
      const std::string fused_label = std::string(s.label) + " fused";
      const bench::OpBreakdown unfused_ops = cppBreakdown(mc, s.batch, false);
      const bench::OpBreakdown fused_ops = cppBreakdown(mc, s.batch, true);
      bench::printBreakdown(unfused_label.c_str(), unfused_ops);
      bench::printBreakdown(fused_label.c_str(), fused_ops);
      bench::printFlopAudit(unfused_label.c_str(), bench::executedFlopsPerStep(mc, s.batch, false),
                            unfused_ops);
      bench::printFlopAudit(fused_label.c_str(), bench::executedFlopsPerStep(mc, s.batch, true),
                            fused_ops);
    }
    std::fflush(stdout);
  }
  goals.atMost("highest gemm_fraction of any step (must not beat the peak)", worst_fraction, 1.0,
               "", bench::GoalKind::kCorrectness);
  return goals.exitCode();
}
