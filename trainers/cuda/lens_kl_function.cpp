// Logit-lens KL glue (see lens_kl_function.h).
#include "trainers/cuda/lens_kl_function.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/lens_kl.cuh"
#include "kernels/lens_kl_reference.h"
#include "trainers/cuda/tensor_matrix.h"

namespace deepladder::trainers::fused {

torch::Tensor lensKl(const torch::Tensor& states_in, const torch::Tensor& unembedding_in,
                     const torch::Tensor& final_logp_in) {
  constexpr const char* kOp = "lensKl";
  const torch::NoGradGuard no_grad;
  TORCH_CHECK(unembedding_in.dim() == 2, kOp, ": unembedding must be (V, d)");
  const int64_t dim = unembedding_in.size(1);
  const int64_t vocab = unembedding_in.size(0);
  TORCH_CHECK(states_in.size(-1) == dim, kOp, ": states width ", states_in.size(-1),
              " != unembedding width ", dim);
  TORCH_CHECK(final_logp_in.size(-1) == vocab, kOp, ": final_logp has ", final_logp_in.size(-1),
              " entries, the vocabulary ", vocab);
  auto leading = states_in.sizes().vec();
  leading.pop_back();
  TORCH_CHECK(final_logp_in.numel() / vocab == states_in.numel() / dim, kOp,
              ": states and final_logp cover different token counts");
  const torch::Tensor states = states_in.reshape({-1, dim}).contiguous();  // (N, d)
  const int64_t tokens = states.size(0);

  const bool kernel_types =
      states.scalar_type() == unembedding_in.scalar_type() &&
      (states.scalar_type() == torch::kFloat32 || states.scalar_type() == torch::kBFloat16);
  if (states.is_cuda() && kernel_types) {
    const c10::cuda::CUDAGuard guard(states.device());
    const torch::Tensor unembedding = unembedding_in.contiguous();
    torch::Tensor final_logp = final_logp_in.reshape({-1, vocab});
    if (final_logp.scalar_type() != torch::kFloat32 &&
        final_logp.scalar_type() != states.scalar_type())
      final_logp = final_logp.to(torch::kFloat32);
    final_logp = final_logp.contiguous();
    torch::Tensor kl = torch::empty({tokens}, states.options().dtype(torch::kFloat32));
    const size_t bytes = kernels::lensKlWorkspaceBytes(tokens, vocab);
    torch::Tensor workspace =
        torch::empty({static_cast<int64_t>(bytes) + 16}, states.options().dtype(torch::kUInt8));
    kernels::lensKl(asMatrix(states, kOp), asMatrix(unembedding, kOp), asMatrix(final_logp, kOp),
                    kl.data_ptr<float>(), workspace.data_ptr(), bytes,
                    at::cuda::getCurrentCUDAStream().stream());
    return kl.reshape(leading);
  }
  const torch::Tensor x = states.to(torch::kCPU, torch::kFloat32).contiguous();
  const torch::Tensor w = unembedding_in.to(torch::kCPU, torch::kFloat32).contiguous();
  const torch::Tensor logp =
      final_logp_in.reshape({-1, vocab}).to(torch::kCPU, torch::kFloat32).contiguous();
  torch::Tensor kl = torch::empty({tokens}, torch::kFloat32);
  kernels::lensKlReference(x.data_ptr<float>(), w.data_ptr<float>(), logp.data_ptr<float>(),
                           kl.data_ptr<float>(), tokens, dim, vocab);
  return kl.reshape(leading).to(states_in.device());
}

}  // namespace deepladder::trainers::fused
