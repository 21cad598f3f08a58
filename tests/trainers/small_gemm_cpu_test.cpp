// smallGemm (trainers/small_gemm_cpu.h), the fused attention's tile product for small heads,
// against torch::mm: every transpose combination, sizes on and off the 4 x 16 and 4 x 8 register
// blocks (a head of 8 takes the narrow one), beta 0
// (C's old contents, even NaN, ignored), 1 and 0.5, leading dimensions wider than the rows, and
// the causal band whose declared zeros it skips.
#include "trainers/small_gemm_cpu.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>
#include <string>

namespace deepladder::trainers {
namespace {

// Stored (rows, cols) inside a wider (rows, cols + 3) buffer: leading dimension cols + 3.
torch::Tensor padded(int64_t rows, int64_t cols) {
  return torch::randn({rows, cols + 3}).narrow(1, 0, cols);
}

TEST(SmallGemm, MatchesTorchMmForEveryTransposeSizeAndBeta) {
  torch::manual_seed(4);
  const int64_t sizes[][3] = {{64, 64, 16}, {64, 16, 64}, {7, 33, 5},  {1, 1, 1},
                              {18, 40, 32}, {64, 8, 64},  {12, 24, 9}, {20, 13, 7}};
  for (const auto& s : sizes) {
    const int64_t M = s[0], N = s[1], K = s[2];
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        for (const float beta : {0.0f, 1.0f, 0.5f}) {
          auto A = ta ? padded(K, M) : padded(M, K);
          auto B = tb ? padded(N, K) : padded(K, N);
          auto C = padded(M, N);
          if (beta == 0.0f) C.fill_(std::numeric_limits<float>::quiet_NaN());
          auto opA = ta ? A.t() : A, opB = tb ? B.t() : B;
          auto want =
              0.75f * torch::mm(opA, opB) + (beta == 0.0f ? torch::zeros({M, N}) : beta * C);
          smallGemm(ta, tb, M, N, K, 0.75f, A.data_ptr<float>(), A.stride(0), B.data_ptr<float>(),
                    B.stride(0), beta, C.data_ptr<float>(), C.stride(0));
          const std::string what = "M=" + std::to_string(M) + " N=" + std::to_string(N) +
                                   " K=" + std::to_string(K) + " ta=" + std::to_string(ta) +
                                   " tb=" + std::to_string(tb) + " beta=" + std::to_string(beta);
          EXPECT_TRUE(torch::allclose(C, want, 1e-5, 1e-5))
              << what << ": max |diff| " << (C - want).abs().max().item<double>();
        }
      }
    }
  }
}

TEST(SmallGemm, CausalBandGivesTheFullProductOfACausallyMaskedMatrix) {
  torch::manual_seed(5);
  for (const int64_t band : {0, 5, 40}) {
    for (const int64_t N : {16, 8}) {  // the wide and the narrow register block
      const int64_t M = 37, K = 41;
      // P (M,K): zero beyond column i + band in row i, as the probabilities of a causal tile.
      auto P = torch::rand({M, K}) * torch::ones({M, K}).tril(band);
      auto V = torch::randn({K, N});
      auto C = torch::zeros({M, N});
      smallGemm(false, false, M, N, K, 1.0f, P.data_ptr<float>(), K, V.data_ptr<float>(), N, 0.0f,
                C.data_ptr<float>(), N, band);
      EXPECT_TRUE(torch::allclose(C, torch::mm(P, V), 1e-5, 1e-5)) << "band " << band << " N " << N;
      // Transposed: op(A) = P^T (K,M), row j of it is zero before column j - band.
      auto G = torch::randn({M, N});
      auto D = torch::zeros({K, N});
      smallGemm(true, false, K, N, M, 1.0f, P.data_ptr<float>(), K, G.data_ptr<float>(), N, 0.0f,
                D.data_ptr<float>(), N, band);
      EXPECT_TRUE(torch::allclose(D, torch::mm(P.t(), G), 1e-5, 1e-5)) << "band " << band << " ^T";
    }
  }
}

}  // namespace
}  // namespace deepladder::trainers
