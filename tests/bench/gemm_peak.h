// The GEMM peak of this machine, measured by libraries other than the trainer's own GEMM, for
// trainer_bench's FLOP audit: Eigen's float32 product (its own kernels, OpenMP threads) and
// Debian's python3 numpy (the system BLAS, ATLAS here, as torch::mm), each over several square
// sizes, best of a few repetitions. A fraction of "the peak" uses the best figure any of them
// reaches, so that no one size or library understates it.
#pragma once

#include <cstdint>
#include <vector>

namespace deepladder::bench {

struct GemmRate {
  int64_t n = 0;           // C (n,n) = A (n,n) B (n,n), float32
  double flops_per_s = 0;  // 2 n^3 / best seconds
};

// Eigen's float32 GEMM on `threads` threads, for each size.
std::vector<GemmRate> eigenGemmRates(const std::vector<int64_t>& sizes, int threads);

// numpy's float32 matmul (python3 -c ...), each size; empty when python3 or numpy is missing.
std::vector<GemmRate> numpyGemmRates(const std::vector<int64_t>& sizes, int threads);

double bestRate(const std::vector<GemmRate>& rates);

}  // namespace deepladder::bench
