// The GEMM peak by Eigen and numpy (see gemm_peak.h).
#include "tests/bench/gemm_peak.h"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace deepladder::bench {

std::vector<GemmRate> eigenGemmRates(const std::vector<int64_t>& sizes, int threads) {
  Eigen::setNbThreads(threads);
  std::vector<GemmRate> out;
  for (const int64_t n : sizes) {
    const Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n);
    Eigen::MatrixXf c(n, n);
    c.noalias() = a * b;  // warm-up
    double best = 1e30;
    const int reps = n <= 512 ? 20 : 5;
    for (int rep = 0; rep < reps; ++rep) {
      const auto start = std::chrono::steady_clock::now();
      c.noalias() = a * b;
      best = std::min(
          best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    out.push_back({n, 2.0 * double(n) * double(n) * double(n) / best});
    if (c(0, 0) == 12345.0f) std::printf(" ");  // keep the product observable
  }
  return out;
}

std::vector<GemmRate> numpyGemmRates(const std::vector<int64_t>& sizes, int threads) {
  std::string list;
  for (const int64_t n : sizes) list += (list.empty() ? "" : ",") + std::to_string(n);
  const std::string t = std::to_string(threads);
  const std::string command =
      "OMP_NUM_THREADS=" + t + " OPENBLAS_NUM_THREADS=" + t +
      " /usr/bin/python3 -c 'import time, numpy as np\n"
      "for n in [" +
      list +
      "]:\n"
      "  a = np.random.rand(n, n).astype(np.float32); b = np.random.rand(n, n).astype(np.float32)\n"
      "  a @ b; best = 1e30\n"
      "  for _ in range(20 if n <= 512 else 3):\n"
      "    s = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - s)\n"
      "  print(n, 2.0 * n ** 3 / best)' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::vector<GemmRate> out;
  if (!pipe) return out;
  std::array<char, 256> line{};
  while (fgets(line.data(), line.size(), pipe.get())) {
    long long n = 0;
    double rate = 0;
    if (std::sscanf(line.data(), "%lld %lf", &n, &rate) == 2) out.push_back({n, rate});
  }
  return out;
}

double bestRate(const std::vector<GemmRate>& rates) {
  double best = 0;
  for (const auto& r : rates) best = std::max(best, r.flops_per_s);
  return best;
}

}  // namespace deepladder::bench
