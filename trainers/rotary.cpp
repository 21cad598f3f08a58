// Rotary position embedding (see rotary.h).
#include "trainers/rotary.h"

#include <ATen/record_function.h>

#include "trainers/fused_cpu_ops.h"
#include "trainers/rotary_cpu.h"

namespace deepladder::trainers {

RotaryImpl::RotaryImpl(int64_t head_dim, int64_t max_seq_len, double base, bool bf16_tables) {
  TORCH_CHECK(head_dim % 2 == 0, "rotary embedding needs an even head size, got ", head_dim);
  const int64_t half = head_dim / 2;
  if (bf16_tables) {
    // The paper's order, all float32: inv_freq = 1 / base^(arange(0, D, 2) / D); angles =
    // outer(t, inv_freq); cos and sin rounded to bfloat16.
    const auto exponents = torch::arange(0, head_dim, 2, torch::kFloat32) / head_dim;
    const auto inv_freq = 1.0 / torch::pow(base, exponents);             // (D/2)
    const auto positions = torch::arange(max_seq_len, torch::kFloat32);  // (T)
    const auto angles = torch::outer(positions, inv_freq);               // (T, D/2)
    const auto c = angles.cos().to(torch::kBFloat16).to(torch::kFloat32);
    const auto s = angles.sin().to(torch::kBFloat16).to(torch::kFloat32);
    cos = register_buffer("cos", torch::cat({c, c}, -1));
    sin = register_buffer("sin", torch::cat({-s, s}, -1));
    return;
  }
  // inv_freq_i = base^(-2i/D), i in [0, D/2)
  auto inv_freq = torch::pow(base, -torch::arange(0, half, torch::kFloat64) * 2.0 / head_dim);
  auto positions = torch::arange(0, max_seq_len, torch::kFloat64);
  auto angles = torch::outer(positions, inv_freq);  // (T, D/2)
  auto c = angles.cos();
  auto s = angles.sin();
  // rotate-half: out = x * [cos, cos] + [x2, x1] * [-sin, sin]
  cos = register_buffer("cos", torch::cat({c, c}, -1).to(torch::kFloat32));
  sin = register_buffer("sin", torch::cat({-s, s}, -1).to(torch::kFloat32));
}

torch::Tensor RotaryImpl::forward(const torch::Tensor& x) {
  RECORD_FUNCTION("deepladder::rotary", std::vector<c10::IValue>());
  if (useFusedCpuPath(x) && x.numel() > 0) return rotaryCpu(x, cos, sin);  // one pass
  const int64_t T = x.size(-2), D = x.size(-1);
  auto c = cos.narrow(0, 0, T);              // (T, D)
  auto s = sin.narrow(0, 0, T);              // (T, D)
  if (x.scalar_type() != c.scalar_type()) {  // bf16 autocast: q, k stay bfloat16
    c = c.to(x.scalar_type());
    s = s.to(x.scalar_type());
  }
  auto swapped =
      torch::cat({x.narrow(-1, D / 2, D / 2), x.narrow(-1, 0, D / 2)}, -1);  // (..., T, D)
  return torch::addcmul(x * c, swapped, s);
}

}  // namespace deepladder::trainers
