// Muon with Polar Express, variance normalization and cautious weight decay: see muon.h for the
// update as a whole. The comments here record how each step of the recipe's wording was read.
// Reference for the fine points (order of casts, which side the variance runs along, which
// learning rate the decay uses): the MuonAdamW of nanochat-style training scripts, whose
// constants (coefficients, 1.02, 1e-6, 0.85 -> 0.95 over 300 steps, 0.95) are the recipe's.
#include "trainers/muon.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "trainers/cpu_gemm.h"

namespace deepladder::trainers {

// ---------------------------------------------------------------------------------------------
// Pieces

const std::array<std::array<double, 3>, 5>& polarExpressCoefficients() {
  static const std::array<std::array<double, 3>, 5> kCoefficients = {{
      {8.156554524902461, -22.48329292557795, 15.878769915207462},
      {4.042929935166739, -2.808917465908714, 0.5000178451051316},
      {3.8916678022926607, -2.772484153217685, 0.5060648178503393},
      {3.285753657755655, -2.3681294933425376, 0.46449024233003106},
      {2.3465413258596377, -1.7097828382687081, 0.42323551169305323},
  }};
  return kCoefficients;
}

double muonMomentum(int64_t step, int64_t ramp_steps) {
  // `step` is the 0-based index of the update being made (the training loop's step), so the
  // first update uses 0.85 and updates ramp_steps (300) and later use 0.95. The momentum follows
  // the global step, not a per-parameter count: a parameter whose state was reset at a growth step
  // gets the same mu as the others.
  if (step < 0 || ramp_steps < 0)
    throw std::invalid_argument("muonMomentum: negative step or ramp");
  if (ramp_steps == 0) return 0.95;
  const double fraction = std::min(static_cast<double>(step) / double(ramp_steps), 1.0);
  return 0.85 + 0.10 * fraction;
}

torch::Tensor normalizeRows(const torch::Tensor& g, double floor) {
  // "Rows normalized to unit L2 norm": rows of the PyTorch layout (out x in), i.e. one row per
  // output unit. The floor is the growth paper's 1e-7 (g / g.norm(dim=-1).clamp_min(1e-7)): it
  // keeps an all-zero row zero instead of NaN, and it leaves rows with a norm under 1e-7 short of
  // unit length, which happens in the first updates of the zero-initialized output projections.
  return g / g.norm(2, {-1}, /*keepdim=*/true).clamp_min(floor);  // (..., R, C)
}

double roundToBf16(double value) {
  return static_cast<double>(static_cast<float>(c10::BFloat16(static_cast<float>(value))));
}

double roundToDtype(double value, torch::ScalarType dtype) {
  switch (dtype) {
    case torch::kBFloat16:
      return roundToBf16(value);
    case torch::kFloat32:
      return static_cast<double>(static_cast<float>(value));
    case torch::kFloat16:
      return static_cast<double>(static_cast<float>(c10::Half(static_cast<float>(value))));
    case torch::kFloat64:
      return value;
    default:
      TORCH_CHECK(false, "roundToDtype: not a floating-point dtype: ", dtype);
  }
}

torch::Tensor polarExpress(const torch::Tensor& g, torch::Dtype dtype) {
  TORCH_CHECK(g.dim() >= 2, "polarExpress: needs (..., rows, cols), got ", g.sizes());
  // "X = G' / (1.02 ||G'||_F + 1e-6) in bf16": cast first, then take the norm and divide in bf16,
  // as the reference does (X = G.bfloat16(); X = X / (X.norm() * 1.02 + 1e-6)). The 2% margin
  // keeps the largest singular value below 1, the range the coefficients were fitted for.
  torch::Tensor x = g.to(dtype);                                  // (..., R, C)
  x = x / (x.norm(2, {-2, -1}, /*keepdim=*/true) * 1.02 + 1e-6);  // (..., R, C)
  const bool tall = g.size(-2) > g.size(-1);
  // Each product accumulates in float32 and is rounded once to the dtype, as a GPU's bf16 GEMM
  // does: on the CPU through oneDNN (fastMatmulNoGrad, cpu_gemm.h), elsewhere torch::matmul.
  for (const auto& [a, b, c] : polarExpressCoefficients()) {
    if (tall) {
      // A = X^T X is (C, C), the smaller Gram matrix for a tall X.
      const torch::Tensor gram = fastMatmulNoGrad(x.transpose(-2, -1), x);           // (..., C, C)
      x = a * x + fastMatmulNoGrad(x, b * gram + c * fastMatmulNoGrad(gram, gram));  // (..., R, C)
    } else {
      // The transposed form (rows <= cols, square included): A = X X^T is (R, R).
      const torch::Tensor gram = fastMatmulNoGrad(x, x.transpose(-2, -1));           // (..., R, R)
      x = a * x + fastMatmulNoGrad(b * gram + c * fastMatmulNoGrad(gram, gram), x);  // (..., R, C)
    }
  }
  return x;
}

std::vector<int64_t> muonVarianceShape(int64_t rows, int64_t cols) {
  if (rows >= cols) return {rows, 1};
  return {1, cols};
}

torch::Tensor normalizeVariance(const torch::Tensor& x, torch::Tensor& variance, double beta,
                                std::optional<torch::ScalarType> scale_dtype) {
  // "Mean of X^2 along the longer side": the statistic is a vector that runs along the longer
  // side, one value per row of a tall (or square) X and one per column of a wide X, each the mean
  // over the shorter side. The other reading would be a no-op: after orthogonalization a tall X
  // has orthonormal columns, so all its column means are equal and normalizing them changes
  // nothing. (This is NorMuon's neuron-wise normalization as the reference implements it.)
  const bool per_row = x.size(-2) >= x.size(-1);
  const int64_t reduce_dim = per_row ? -1 : -2;
  const double reduce_size = static_cast<double>(x.size(reduce_dim));
  // Statistics in the state's dtype (float32 for float32 parameters), from the bf16 X.
  const torch::Tensor xf = x.to(variance.scalar_type());                           // (..., R, C)
  const torch::Tensor mean_sq = xf.square().mean({reduce_dim}, /*keepdim=*/true);  // (..., R, 1)
  const torch::Tensor norm_before =
      (mean_sq.sum({-2, -1}, /*keepdim=*/true) * reduce_size).sqrt();  // (..., 1, 1) = ||X||_F
  // "EMA with 0.95": V <- 0.95 V + 0.05 m, from V = 0 and without bias correction. No correction
  // is needed: at any step a bias factor would scale all of V alike, and the Frobenius rescale
  // below removes any uniform factor.
  variance.lerp_(mean_sq, 1.0 - beta);
  // "X scaled by its inverse root": X / sqrt(V), V floored at 1e-10 (a zero row or column).
  const torch::Tensor inverse_root = variance.clamp_min(1e-10).rsqrt();  // (..., R, 1)
  // ||X / sqrt(V)||_F from the statistics, without forming the scaled X.
  const torch::Tensor norm_after =
      ((mean_sq * reduce_size) * inverse_root.square()).sum({-2, -1}, /*keepdim=*/true).sqrt();
  // "Then rescaled to its previous Frobenius norm".
  const torch::Tensor scale = inverse_root * (norm_before / norm_after.clamp_min(1e-10));
  // The paper rounds the scale to X's dtype (bf16 in the recipe, float32 when orthogonalizing in
  // float32) and multiplies in it (g * final_scale.to(g.dtype)); with exact scalars the product
  // stays in the state's precision (float32), one rounding fewer.
  if (scale_dtype) {
    const torch::Tensor scale_s = scale.to(*scale_dtype).to(xf.scalar_type());
    // A bf16 x bf16 product is exact in float32, then rounded once, as a bf16 multiply does.
    return (xf * scale_s).to(*scale_dtype).to(xf.scalar_type());
  }
  return xf * scale;  // (..., R, C)
}

double muonStepScale(int64_t rows, int64_t cols) {
  return std::sqrt(std::max(1.0, static_cast<double>(rows) / static_cast<double>(cols)));
}

void applyCautiousUpdate(torch::Tensor& weight, const torch::Tensor& update, double step_size,
                         double weight_decay) {
  torch::NoGradGuard no_grad;
  // "W <- W - lr X - lr wd W [X W >= 0]": one lr in both terms, and that lr is the step size
  // eta = lr sqrt(max(1, rows/cols)) (the reference folds the aspect factor into lr before both
  // terms). [X W >= 0] is elementwise: decay only where the update and the weight agree in sign
  // (cautious weight decay, Chen et al. 2025), with W taken before this update; a zero product
  // counts as agreement (>=). Both terms come from the same old W (one simultaneous update).
  const torch::Tensor x = update.to(weight.scalar_type());
  const torch::Tensor agree = (x * weight).ge(0).to(weight.scalar_type());
  weight.sub_(x + weight_decay * weight * agree, step_size);
}

void applyPaperUpdate(torch::Tensor& weight, const torch::Tensor& update, double step_size,
                      double weight_decay, bool cautious, torch::ScalarType update_dtype) {
  torch::NoGradGuard no_grad;
  // lr, wd_lr (= lr) and wd are float32 tensors cast .to(g.dtype) (bf16 in the recipe);
  // wd_lr * wd is a product in that dtype: exact in double, then rounded once.
  const double lr_s = roundToDtype(step_size, update_dtype);
  const double decay_s =
      roundToDtype(lr_s * roundToDtype(weight_decay, update_dtype), update_dtype);
  const torch::Tensor x = update.to(weight.scalar_type());
  // lr * g in g's dtype: the product of a bf16 scalar and X is exact in float32, then rounded.
  const torch::Tensor step_term = (x * lr_s).to(update_dtype).to(weight.scalar_type());
  torch::Tensor decay_term = weight * decay_s;
  if (cautious) decay_term = decay_term * (x * weight).ge(0).to(weight.scalar_type());
  weight.sub_(step_term + decay_term);
}

// ---------------------------------------------------------------------------------------------
// Optimizer

Muon::Muon(std::vector<MuonParameter> parameters, MuonOptions options)
    : parameters_(std::move(parameters)), options_(options) {
  std::map<std::pair<int64_t, int64_t>, size_t> batch_of_shape;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const auto& p = parameters_[i];
    TORCH_CHECK(p.tensor.defined() && p.tensor.dim() == 2 && p.tensor.is_floating_point(),
                "Muon: parameter ", i, " must be a 2-D floating-point matrix, got ",
                p.tensor.defined() ? p.tensor.sizes() : c10::IntArrayRef{});
    TORCH_CHECK(p.row_blocks >= 1 && p.tensor.size(0) % p.row_blocks == 0, "Muon: parameter ", i,
                " has ", p.tensor.size(0), " rows, not divisible into ", p.row_blocks, " blocks");
    const int64_t rows = p.tensor.size(0) / p.row_blocks;
    const int64_t cols = p.tensor.size(1);
    auto state_options = p.tensor.options().requires_grad(false);
    momentum_.push_back(torch::zeros_like(p.tensor, state_options));
    std::vector<int64_t> variance_shape = muonVarianceShape(rows, cols);
    variance_shape.insert(variance_shape.begin(), p.row_blocks);
    variance_.push_back(torch::zeros(variance_shape, state_options));
    const auto key = std::make_pair(rows, cols);
    auto found = batch_of_shape.find(key);
    if (found == batch_of_shape.end()) {
      found = batch_of_shape.emplace(key, batches_.size()).first;
      batches_.push_back(ShapeBatch{rows, cols, {}});
    }
    batches_[found->second].members.push_back(i);
  }
}

void Muon::step(double lr, double momentum) {
  torch::NoGradGuard no_grad;
  // Three phases so the expensive middle one can be shared out across data-parallel ranks:
  // momentum and row normalization per shape batch, Polar Express on every batch, then the
  // variance normalization and the update.
  struct Pending {
    const ShapeBatch* batch;
    std::vector<size_t> active;
    std::vector<torch::Tensor> variances;  // each (row_blocks, rows, 1) or (row_blocks, 1, cols)
  };
  std::vector<Pending> pending;
  std::vector<torch::Tensor> matrices;  // per pending batch: (n, rows, cols)
  const bool paper = !options_.exact_scalars;
  // The paper fills mu into a float32 tensor and takes 1 - mu there.
  const double one_minus_momentum =
      paper ? static_cast<double>(1.0f - static_cast<float>(momentum)) : 1.0 - momentum;
  for (const auto& batch : batches_) {
    Pending p{&batch, {}, {}};
    std::vector<torch::Tensor> nesterov;  // each (row_blocks, rows, cols)
    for (size_t i : batch.members) {
      const torch::Tensor& grad = parameters_[i].tensor.grad();
      if (!grad.defined()) continue;  // unused this step: no decay, no state change
      const torch::Tensor g = grad.detach().to(momentum_[i].scalar_type());
      // M <- mu M + (1 - mu) G, then G' = (1 - mu) G + mu M with the new M (Nesterov). The
      // gradient itself is left as it is.
      momentum_[i].lerp_(g, one_minus_momentum);
      nesterov.push_back(g.lerp(momentum_[i], momentum).view({-1, batch.rows, batch.cols}));
      p.variances.push_back(variance_[i]);
      p.active.push_back(i);
    }
    if (p.active.empty()) continue;
    // One batch of matrices of the same shape: (n, rows, cols).
    matrices.push_back(normalizeRows(torch::cat(nesterov, 0), options_.row_norm_floor));
    pending.push_back(std::move(p));
  }
  // Polar Express returns `orthogonalization_dtype`; back in the input's dtype (float32 holds
  // every bf16 value exactly) so a shared-out batch keeps its shape and dtype.
  const MatrixMap orthogonalize = [dtype =
                                       options_.orthogonalization_dtype](const torch::Tensor& m) {
    return polarExpress(m, dtype).to(m.scalar_type());
  };
  if (options_.orthogonalizer) {
    options_.orthogonalizer(matrices, orthogonalize);
  } else {
    for (auto& m : matrices) m = orthogonalize(m);
  }
  // The paper casts its scalars to the orthogonalized X's dtype (lr_t.to(g.dtype)): they follow
  // the orthogonalization dtype unless scalar_dtype says otherwise.
  const torch::ScalarType scalar_dtype =
      options_.scalar_dtype.value_or(options_.orthogonalization_dtype);
  for (size_t k = 0; k < pending.size(); ++k) {
    const ShapeBatch& batch = *pending[k].batch;
    torch::Tensor variance = torch::cat(pending[k].variances, 0);
    const torch::Tensor x =
        paper ? normalizeVariance(matrices[k], variance,
                                  roundToDtype(options_.variance_beta, scalar_dtype), scalar_dtype)
              : normalizeVariance(matrices[k], variance, options_.variance_beta);
    const double step_size = lr * muonStepScale(batch.rows, batch.cols);
    int64_t offset = 0;
    for (size_t i : pending[k].active) {
      const int64_t blocks = parameters_[i].row_blocks;
      variance_[i].copy_(variance.narrow(0, offset, blocks));
      torch::Tensor weight = parameters_[i].tensor.detach();  // shares storage
      const torch::Tensor update = x.narrow(0, offset, blocks).reshape(weight.sizes());
      if (paper)
        applyPaperUpdate(weight, update, step_size, options_.weight_decay,
                         options_.cautious_weight_decay, scalar_dtype);
      else if (options_.cautious_weight_decay)
        applyCautiousUpdate(weight, update, step_size, options_.weight_decay);
      else
        weight.sub_(update.to(weight.scalar_type()) + options_.weight_decay * weight, step_size);
      offset += blocks;
    }
  }
}

bool Muon::resetState(const torch::Tensor& parameter) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (!parameters_[i].tensor.is_same(parameter)) continue;
    momentum_[i].zero_();
    variance_[i].zero_();
    return true;
  }
  return false;
}

void Muon::inheritState(const Muon& previous) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    for (size_t j = 0; j < previous.parameters_.size(); ++j) {
      if (!previous.parameters_[j].tensor.is_same(parameters_[i].tensor)) continue;
      TORCH_CHECK(previous.variance_[j].sizes() == variance_[i].sizes(),
                  "Muon::inheritState: parameter ", i, " is split into other row blocks");
      momentum_[i].copy_(previous.momentum_[j]);
      variance_[i].copy_(previous.variance_[j]);
      break;
    }
  }
}

void Muon::save(torch::serialize::OutputArchive& archive, const std::string& prefix) const {
  for (size_t i = 0; i < parameters_.size(); ++i) {
    archive.write(prefix + "momentum." + std::to_string(i), momentum_[i].to(torch::kCPU),
                  /*is_buffer=*/true);
    archive.write(prefix + "variance." + std::to_string(i), variance_[i].to(torch::kCPU),
                  /*is_buffer=*/true);
  }
}

void Muon::load(torch::serialize::InputArchive& archive, const std::string& prefix) {
  torch::NoGradGuard no_grad;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> loaded;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    torch::Tensor m, v;
    archive.read(prefix + "momentum." + std::to_string(i), m, /*is_buffer=*/true);
    archive.read(prefix + "variance." + std::to_string(i), v, /*is_buffer=*/true);
    TORCH_CHECK(m.sizes() == momentum_[i].sizes() && v.sizes() == variance_[i].sizes(),
                "Muon state of parameter ", i, " has shape ", m.sizes(), "/", v.sizes(),
                " but the model needs ", momentum_[i].sizes(), "/", variance_[i].sizes(),
                ": the checkpoint belongs to another model");
    loaded.emplace_back(std::move(m), std::move(v));
  }
  for (size_t i = 0; i < parameters_.size(); ++i) {
    momentum_[i].copy_(loaded[i].first);
    variance_[i].copy_(loaded[i].second);
  }
}

}  // namespace deepladder::trainers
