// Logit lens KL profile (see logit_lens.h).
#include "trainers/logit_lens.h"

#include <algorithm>

#ifdef DEEPLADDER_HAVE_CUDA_KERNELS
#include "trainers/cuda/lens_kl_function.h"
#endif

namespace deepladder::trainers {

int64_t defaultLensChunkRows(int64_t vocab_size) {
  return std::max<int64_t>(1, (int64_t{1} << 24) / std::max<int64_t>(1, vocab_size));
}

int64_t addLensKl(GPTImpl& model, const std::vector<torch::Tensor>& residuals,
                  std::vector<double>& kl_sum, int64_t chunk_rows) {
  torch::NoGradGuard no_grad;
  TORCH_CHECK(!residuals.empty(), "addLensKl: no residual states");
  if (kl_sum.empty()) kl_sum.assign(residuals.size(), 0.0);
  TORCH_CHECK(kl_sum.size() == residuals.size(), "addLensKl: ", kl_sum.size(), " accumulators for ",
              residuals.size(), " residual states");
  const int64_t dim = residuals.back().size(-1);
  const int64_t rows = residuals.back().numel() / dim;
  if (chunk_rows <= 0) chunk_rows = defaultLensChunkRows(model.config.vocab_size);
  const torch::Tensor weight = model.decodingWeight();  // (V,C): m_out x head rows in use
  std::vector<torch::Tensor> flat;
  flat.reserve(residuals.size());
  for (const auto& h : residuals) flat.push_back(h.reshape({rows, dim}));  // (N,C)
  const size_t last = flat.size() - 1;
  for (int64_t begin = 0; begin < rows; begin += chunk_rows) {
    const int64_t n = std::min(chunk_rows, rows - begin);
    const torch::Tensor final_logp =
        torch::log_softmax(model.decode(flat[last].narrow(0, begin, n)), -1);  // (n,V)
    const torch::Tensor p = final_logp.exp();                                  // (n,V)
    for (size_t l = 0; l < flat.size(); ++l) {
      if (l == last) continue;                                   // q_L = p: KL exactly 0
      const torch::Tensor states = flat[l].narrow(0, begin, n);  // (n,C)
#ifdef DEEPLADDER_HAVE_CUDA_KERNELS
      if (states.is_cuda()) {
        const torch::Tensor normed = model.final_norm(states);  // (n,C)
        kl_sum[l] += fused::lensKl(normed, weight, final_logp).sum().item<double>();
        continue;
      }
#endif
      const torch::Tensor logq = torch::log_softmax(model.decode(states), -1);  // (n,V)
      kl_sum[l] += (p * (final_logp - logq)).sum().item<double>();
    }
  }
  return rows;
}

}  // namespace deepladder::trainers
