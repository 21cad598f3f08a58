// Boundary operator autograd function (see boundary_operator_function.h).
#include "trainers/cuda/boundary_operator_function.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/boundary_operator.cuh"
#include "kernels/boundary_operator_reference.h"
#include "trainers/cuda/tensor_matrix.h"

namespace deepladder::trainers::fused {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

constexpr const char* kOp = "boundaryOperator";

bool useKernel(const torch::Tensor& t) {
  return t.is_cuda() && (t.scalar_type() == torch::kFloat32 || t.scalar_type() == torch::kBFloat16);
}

// (rows, C) float32 CPU copies for the reference, and back.
torch::Tensor cpuFloat(const torch::Tensor& t) {
  return t.to(torch::kCPU, torch::kFloat32).contiguous();
}

struct BoundaryOperatorFunction : torch::autograd::Function<BoundaryOperatorFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& h_in,
                               const torch::Tensor& e_in, double alpha, double eps) {
    TORCH_CHECK(h_in.sizes() == e_in.sizes(), kOp, ": h ", h_in.sizes(), " and e ", e_in.sizes(),
                " must have the same shape");
    TORCH_CHECK(h_in.scalar_type() == e_in.scalar_type() && h_in.device() == e_in.device(), kOp,
                ": h and e must share dtype and device");
    const torch::Tensor h = h_in.contiguous();
    const torch::Tensor e = e_in.contiguous();
    const int64_t dim = h.size(-1);
    const int64_t rows = dim == 0 ? 0 : h.numel() / dim;
    torch::Tensor y;
    torch::Tensor inv_rms;
    if (useKernel(h)) {
      const c10::cuda::CUDAGuard guard(h.device());
      y = torch::empty_like(h);
      inv_rms = torch::empty({rows}, h.options().dtype(torch::kFloat32));
      kernels::boundaryOperatorForward(asMatrix(h, kOp), asMatrix(e, kOp), asMatrix(y, kOp),
                                       inv_rms.data_ptr<float>(), static_cast<float>(alpha),
                                       static_cast<float>(eps),
                                       at::cuda::getCurrentCUDAStream().stream());
    } else {
      const torch::Tensor hf = cpuFloat(h), ef = cpuFloat(e);
      torch::Tensor yf = torch::empty_like(hf);
      inv_rms = torch::empty({rows}, torch::kFloat32);
      kernels::boundaryOperatorForwardReference(
          hf.data_ptr<float>(), ef.data_ptr<float>(), yf.data_ptr<float>(),
          inv_rms.data_ptr<float>(), rows, dim, static_cast<float>(alpha), static_cast<float>(eps));
      y = yf.to(h.device(), h.scalar_type());
    }
    ctx->save_for_backward({h, inv_rms});
    ctx->saved_data["alpha"] = alpha;
    return y;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& h = saved[0];
    const torch::Tensor& inv_rms = saved[1];
    const double alpha = ctx->saved_data["alpha"].toDouble();
    const torch::Tensor dy = grads[0].contiguous();
    const int64_t dim = h.size(-1);
    const int64_t rows = dim == 0 ? 0 : h.numel() / dim;
    torch::Tensor dh;
    torch::Tensor de;
    if (useKernel(h)) {
      const c10::cuda::CUDAGuard guard(h.device());
      const torch::Tensor g = dy.to(h.scalar_type());
      dh = torch::empty_like(h);
      de = torch::empty_like(h);
      kernels::boundaryOperatorBackward(asMatrix(h, kOp), kernels::Matrix{},
                                        inv_rms.data_ptr<float>(), asMatrix(g, kOp),
                                        asMatrix(dh, kOp), asMatrix(de, kOp),
                                        /*dalpha_rows=*/nullptr, static_cast<float>(alpha),
                                        at::cuda::getCurrentCUDAStream().stream());
    } else {
      const torch::Tensor hf = cpuFloat(h), gf = cpuFloat(dy);
      torch::Tensor dhf = torch::empty_like(hf), def = torch::empty_like(hf);
      kernels::boundaryOperatorBackwardReference(
          hf.data_ptr<float>(), /*e=*/nullptr, inv_rms.data_ptr<float>(), gf.data_ptr<float>(),
          dhf.data_ptr<float>(), def.data_ptr<float>(), /*dalpha_rows=*/nullptr, rows, dim,
          static_cast<float>(alpha));
      dh = dhf.to(h.device(), h.scalar_type());
      de = def.to(h.device(), h.scalar_type());
    }
    return {dh, de, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor boundaryOperator(const torch::Tensor& h, const torch::Tensor& e, double alpha,
                               double eps) {
  return BoundaryOperatorFunction::apply(h, e, alpha, eps);
}

}  // namespace deepladder::trainers::fused
