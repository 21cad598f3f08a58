// Muon and the combined optimizer: each step of the Muon update against an independent
// double-precision implementation written out below with plain loops (the "hand computation"),
// Polar Express against the polar factor U V^T from an SVD, the variance normalization, the
// cautious weight decay mask, the momentum warmup, AdamW's bias correction and eps placement by
// hand, checkpoint round trips and per-parameter state resets.
#include "trainers/muon.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "trainers/cpu_gemm.h"
#include "trainers/param_groups.h"

namespace deepladder::trainers {
namespace {

// ---------------------------------------------------------------------------------------------
// The reference: a plain row-major double matrix and the recipe's Muon step, written from the
// issue text without torch.

struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), v(static_cast<size_t>(r * c), 0.0) {}
  double& at(int64_t i, int64_t j) { return v[static_cast<size_t>(i * cols + j)]; }
  double at(int64_t i, int64_t j) const { return v[static_cast<size_t>(i * cols + j)]; }
};

Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < a.cols; ++k) sum += a.at(i, k) * b.at(k, j);
      out.at(i, j) = sum;
    }
  return out;
}

Matrix transpose(const Matrix& a) {
  Matrix out(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) out.at(j, i) = a.at(i, j);
  return out;
}

double frobenius(const Matrix& a) {
  double sum = 0;
  for (double x : a.v) sum += x * x;
  return std::sqrt(sum);
}

Matrix fromTensor(const torch::Tensor& t) {
  const torch::Tensor d = t.detach().to(torch::kFloat64).contiguous();
  Matrix m(d.size(0), d.size(1));
  std::copy(d.data_ptr<double>(), d.data_ptr<double>() + d.numel(), m.v.begin());
  return m;
}

struct ReferenceMuon {
  Matrix momentum;
  std::vector<double> variance;  // along the longer side
  ReferenceMuon(int64_t r, int64_t c)
      : momentum(r, c), variance(static_cast<size_t>(std::max(r, c)), 0.0) {}

  // One update of `w` with gradient `g` at 0-based step `step`.
  void step(Matrix& w, const Matrix& g, int64_t step, double lr, double wd) {
    const int64_t r = w.rows, c = w.cols;
    const double mu = 0.85 + 0.10 * std::min(static_cast<double>(step) / 300.0, 1.0);
    Matrix x(r, c);
    for (size_t k = 0; k < g.v.size(); ++k) {
      momentum.v[k] = mu * momentum.v[k] + (1 - mu) * g.v[k];
      x.v[k] = (1 - mu) * g.v[k] + mu * momentum.v[k];
    }
    for (int64_t i = 0; i < r; ++i) {  // unit rows
      double norm = 0;
      for (int64_t j = 0; j < c; ++j) norm += x.at(i, j) * x.at(i, j);
      norm = std::max(std::sqrt(norm), 1e-12);
      for (int64_t j = 0; j < c; ++j) x.at(i, j) /= norm;
    }
    const double scale = 1.0 / (1.02 * frobenius(x) + 1e-6);
    for (double& e : x.v) e *= scale;
    for (const auto& [a, b, cc] : polarExpressCoefficients()) {
      // X a + X (b A + c A^2), A = X^T X: the same polynomial whichever side it is taken on.
      const Matrix gram = multiply(transpose(x), x);
      const Matrix gram2 = multiply(gram, gram);
      Matrix poly(c, c);
      for (size_t k = 0; k < poly.v.size(); ++k) poly.v[k] = b * gram.v[k] + cc * gram2.v[k];
      const Matrix xp = multiply(x, poly);
      for (size_t k = 0; k < x.v.size(); ++k) x.v[k] = a * x.v[k] + xp.v[k];
    }
    const bool per_row = r >= c;
    const double before = frobenius(x);
    Matrix scaled = x;
    for (int64_t l = 0; l < std::max(r, c); ++l) {
      double mean = 0;
      const int64_t n = per_row ? c : r;
      for (int64_t k = 0; k < n; ++k) {
        const double e = per_row ? x.at(l, k) : x.at(k, l);
        mean += e * e / static_cast<double>(n);
      }
      variance[static_cast<size_t>(l)] = 0.95 * variance[static_cast<size_t>(l)] + 0.05 * mean;
      const double inv_root = 1.0 / std::sqrt(std::max(variance[static_cast<size_t>(l)], 1e-10));
      for (int64_t k = 0; k < n; ++k) (per_row ? scaled.at(l, k) : scaled.at(k, l)) *= inv_root;
    }
    const double after = frobenius(scaled);
    for (double& e : scaled.v) e *= before / after;
    const double eta = lr * std::sqrt(std::max(1.0, static_cast<double>(r) / c));
    for (size_t k = 0; k < w.v.size(); ++k) {
      const double mask = scaled.v[k] * w.v[k] >= 0 ? 1.0 : 0.0;
      w.v[k] = w.v[k] - eta * scaled.v[k] - eta * wd * w.v[k] * mask;
    }
  }
};

// Deterministic pseudo-random gradient for (parameter, step).
torch::Tensor gradientFor(const torch::Tensor& p, int64_t index, int64_t step) {
  torch::manual_seed(1000 * index + step + 7);
  return torch::randn(p.sizes(), p.options().requires_grad(false));
}

// Runs `steps` Muon updates of one (r x c) matrix (double parameters, Polar Express in `dtype`)
// beside the reference; returns ||dW - dW_ref||_F / ||dW_ref||_F for the total displacement dW.
double muonAgainstReference(int64_t r, int64_t c, torch::Dtype dtype, int steps,
                            int64_t first_step) {
  torch::manual_seed(3);
  torch::Tensor w = torch::randn({r, c}, torch::kFloat64).mul_(0.3).requires_grad_(true);
  const Matrix w0 = fromTensor(w);
  Matrix w_ref = w0;
  ReferenceMuon reference(r, c);
  MuonOptions options;
  options.weight_decay = 0.1;
  options.orthogonalization_dtype = dtype;
  Muon muon({{w}}, options);
  for (int64_t s = first_step; s < first_step + steps; ++s) {
    const torch::Tensor g = gradientFor(w, 0, s);
    w.mutable_grad() = g;
    muon.step(/*lr=*/0.04, muonMomentum(s));
    reference.step(w_ref, fromTensor(g), s, 0.04, 0.1);
  }
  const Matrix w_t = fromTensor(w);
  double err = 0, size = 0;
  for (size_t k = 0; k < w0.v.size(); ++k) {
    err += std::pow(w_t.v[k] - w_ref.v[k], 2);
    size += std::pow(w_ref.v[k] - w0.v[k], 2);
  }
  return std::sqrt(err / size);
}

// ---------------------------------------------------------------------------------------------

TEST(Muon, StepMatchesHandComputationInDoublePrecision) {
  // Tall, wide and square; steps 0..2 exercise the momentum and the variance EMA; steps 150 and
  // 400 check mu mid-warmup and after it. Float64 orthogonalization: only rounding separates
  // the two (relative error of the weights' displacement).
  EXPECT_LT(muonAgainstReference(4, 3, torch::kFloat64, 3, 0), 1e-12);
  EXPECT_LT(muonAgainstReference(3, 4, torch::kFloat64, 3, 0), 1e-12);
  EXPECT_LT(muonAgainstReference(4, 4, torch::kFloat64, 2, 150), 1e-12);
  EXPECT_LT(muonAgainstReference(12, 5, torch::kFloat64, 2, 400), 1e-12);
}

TEST(Muon, Bf16StepIsCloseToHandComputation) {
  // The same steps in the recipe's bf16. Five iterations with coefficients up to 22 cancel
  // digits: bf16 Polar Express differs from float64 by about 7-14% in Frobenius norm (PyTorch's
  // own bf16 gives the same: 0.104 for 4x3, 0.137 for 48x16, 0.068 for 192x64), so the bound is
  // loose; it still catches any wrong step (a missing normalization or a wrong transpose is off
  // by order one).
  const double tall = muonAgainstReference(4, 3, torch::kBFloat16, 3, 0);
  const double wide = muonAgainstReference(3, 4, torch::kBFloat16, 3, 0);
  const double big = muonAgainstReference(48, 16, torch::kBFloat16, 2, 0);
  std::cout << "bf16 vs double, relative error of dW: 4x3 " << tall << ", 3x4 " << wide
            << ", 48x16 " << big << "\n";
  EXPECT_LT(tall, 0.25);
  EXPECT_LT(wide, 0.25);
  EXPECT_LT(big, 0.25);
}

TEST(Muon, RowBlocksAreUpdatedAsSeparateMatrices) {
  // A fused (8, 3) weight with row_blocks 2 must move exactly as two (4, 3) matrices would.
  torch::manual_seed(5);
  torch::Tensor fused = torch::randn({8, 3}, torch::kFloat64).requires_grad_(true);
  torch::Tensor top = fused.detach().narrow(0, 0, 4).clone().requires_grad_(true);
  torch::Tensor bottom = fused.detach().narrow(0, 4, 4).clone().requires_grad_(true);
  MuonOptions options;
  options.weight_decay = 0.1;
  options.orthogonalization_dtype = torch::kFloat64;
  Muon fused_muon({{fused, /*row_blocks=*/2}}, options);
  Muon separate({{top}, {bottom}}, options);
  for (int64_t s = 0; s < 3; ++s) {
    const torch::Tensor g = gradientFor(fused, 0, s);
    fused.mutable_grad() = g;
    top.mutable_grad() = g.narrow(0, 0, 4).clone();
    bottom.mutable_grad() = g.narrow(0, 4, 4).clone();
    fused_muon.step(0.04, muonMomentum(s));
    separate.step(0.04, muonMomentum(s));
  }
  EXPECT_TRUE(
      torch::allclose(fused.detach(), torch::cat({top.detach(), bottom.detach()}), 0, 1e-14));
  // The step size uses the block's rows: (4, 3) -> sqrt(4/3), not sqrt(8/3).
  EXPECT_DOUBLE_EQ(muonStepScale(4, 3), std::sqrt(4.0 / 3.0));
  EXPECT_DOUBLE_EQ(muonStepScale(3, 4), 1.0);
}

TEST(Muon, ASharedOutOrthogonalizationGivesTheSameUpdate) {
  // What a data-parallel run does (each rank orthogonalizes a share, the results are gathered),
  // played by an orthogonalizer that works through the batches in reverse, one at a time,
  // writing in place: the update must be bitwise the one Muon computes by itself (bf16 recipe).
  torch::manual_seed(9);
  auto make = [] {
    return std::vector<torch::Tensor>{torch::randn({12, 4}), torch::randn({4, 12}),
                                      torch::randn({12, 4}), torch::randn({6, 6})};
  };
  std::vector<torch::Tensor> local = make();
  std::vector<torch::Tensor> shared;
  for (const auto& t : local) shared.push_back(t.clone());
  std::vector<MuonParameter> local_params, shared_params;
  for (size_t i = 0; i < local.size(); ++i) {
    local[i].requires_grad_(true);
    shared[i].requires_grad_(true);
    local_params.push_back({local[i], i == 0 ? 3 : 1});
    shared_params.push_back({shared[i], i == 0 ? 3 : 1});
  }
  MuonOptions options;
  options.weight_decay = 0.1;
  Muon alone(local_params, options);
  int64_t batches_seen = 0;
  options.orthogonalizer = [&](const std::vector<torch::Tensor>& batches, const MatrixMap& fn) {
    batches_seen += static_cast<int64_t>(batches.size());
    for (auto it = batches.rbegin(); it != batches.rend(); ++it) it->copy_(fn(*it));
  };
  Muon spread(shared_params, options);
  for (int64_t s = 0; s < 3; ++s) {
    for (size_t i = 0; i < local.size(); ++i) {
      const torch::Tensor g = gradientFor(local[i], static_cast<int64_t>(i), s).to(torch::kFloat32);
      local[i].mutable_grad() = g;
      shared[i].mutable_grad() = g.clone();
    }
    alone.step(0.04, muonMomentum(s));
    spread.step(0.04, muonMomentum(s));
  }
  EXPECT_GT(batches_seen, 0);
  for (size_t i = 0; i < local.size(); ++i)
    EXPECT_TRUE(torch::equal(local[i].detach(), shared[i].detach())) << "parameter " << i;
}

// (r, c) with singular values log-spaced from 1 down to `smallest` and random singular vectors.
torch::Tensor matrixWithSpectrum(int64_t r, int64_t c, double smallest, int64_t seed) {
  torch::manual_seed(seed);
  const int64_t k = std::min(r, c);
  const torch::Tensor u = std::get<0>(torch::linalg_qr(torch::randn({r, k}, torch::kFloat64)));
  const torch::Tensor v = std::get<0>(torch::linalg_qr(torch::randn({c, k}, torch::kFloat64)));
  const torch::Tensor s = torch::logspace(0, std::log10(smallest), k, 10, torch::kFloat64);
  return u.matmul(torch::diag(s)).matmul(v.transpose(0, 1));
}

TEST(Muon, PolarExpressIsCloseToThePolarFactor) {
  // U V^T from an SVD in double. The five iterations map every singular value in the range they
  // were designed for (down to about 1e-3 of the largest) into a band around 1: about [0.81,
  // 1.14] in bf16 here, so X is within about 10-15% of U V^T in Frobenius norm. Singular values
  // spread down to 1e-2, tall, wide and square.
  for (const auto& [r, c] : std::vector<std::pair<int64_t, int64_t>>{
           {4, 3}, {3, 4}, {64, 32}, {32, 64}, {96, 96}, {192, 64}}) {
    const torch::Tensor g = matrixWithSpectrum(r, c, 1e-2, 11 + r + c);
    const auto [u, s, vh] = torch::linalg_svd(g, /*full_matrices=*/false);
    const torch::Tensor polar = u.matmul(vh);  // (r, c)
    for (const auto dtype : {torch::kBFloat16, torch::kFloat64}) {
      const torch::Tensor x = polarExpress(g, dtype).to(torch::kFloat64);
      const double rel = (x - polar).norm().item<double>() / polar.norm().item<double>();
      const torch::Tensor sx = torch::linalg_svdvals(x);
      std::cout << r << "x" << c << (dtype == torch::kBFloat16 ? " bf16" : " f64")
                << ": ||X - UV^T||_F/||UV^T||_F = " << rel << ", sigma(X) in ["
                << sx.min().item<double>() << ", " << sx.max().item<double>() << "]\n";
      EXPECT_LT(rel, 0.2) << r << "x" << c;
      EXPECT_GT(sx.min().item<double>(), 0.7) << r << "x" << c;
      EXPECT_LT(sx.max().item<double>(), 1.25) << r << "x" << c;
      // Same singular vectors: X U-projected onto V is diagonal up to the band's spread.
      const torch::Tensor core = u.transpose(0, 1).matmul(x).matmul(vh.transpose(0, 1));
      const torch::Tensor off = core - torch::diag(torch::diagonal(core));
      EXPECT_LT(off.norm().item<double>() / core.norm().item<double>(), 0.2);
    }
  }
}

TEST(Muon, PolarExpressProductsAccumulateInFloat32AndRoundOnce) {
  // Polar Express's products (fastMatmulNoGrad): batched, a transposed view among the inputs, as
  // in the iteration. bfloat16: the exact product (float64) rounded once to bfloat16, give or take
  // the float32 accumulation's rounding (one bf16 step where the sum lands near a rounding
  // boundary); float32: the exact product within float32 accumulation error.
  torch::manual_seed(8);
  const torch::Tensor x = torch::randn({3, 56, 168});
  for (const auto dtype : {torch::kBFloat16, torch::kFloat32}) {
    const torch::Tensor a = x.to(dtype),
                        b = x.to(dtype).transpose(-2, -1);  // (3,56,168) (3,168,56)
    const torch::Tensor got = fastMatmulNoGrad(a, b);
    ASSERT_EQ(got.scalar_type(), dtype);
    ASSERT_EQ(got.sizes(), (std::vector<int64_t>{3, 56, 56}));
    const torch::Tensor exact = a.to(torch::kFloat64).matmul(b.to(torch::kFloat64));
    const torch::Tensor rounded = exact.to(dtype).to(torch::kFloat64);
    // float32 accumulation error bound per entry: K 2^-24 sum_k |a_ik b_kj|.
    const torch::Tensor magnitude =
        a.to(torch::kFloat64).abs().matmul(b.to(torch::kFloat64).abs()) *
        (168 * std::ldexp(1, -24));
    const torch::Tensor diff = (got.to(torch::kFloat64) - rounded).abs();
    const double step = dtype == torch::kBFloat16 ? std::ldexp(1, -7) : 0.0;  // one bf16 step
    EXPECT_TRUE((diff <= rounded.abs() * step + magnitude).all().item<bool>())
        << "max |got - rounded exact| " << diff.max().item<double>();
    if (dtype == torch::kBFloat16) {  // most entries are the exact product rounded once
      const double same = (diff == 0).to(torch::kFloat64).mean().item<double>();
      EXPECT_GT(same, 0.95) << same;
    }
  }
  // Switched off, it is LibTorch's matmul, bit for bit.
  const torch::Tensor a = x.to(torch::kBFloat16), b = a.transpose(-2, -1);
  setFastCpuGemmEnabled(false);
  const torch::Tensor off = fastMatmulNoGrad(a, b);
  setFastCpuGemmEnabled(true);
  EXPECT_TRUE(torch::equal(off, a.matmul(b)));
  // Shapes it does not take (batch dims that differ) go to matmul too.
  EXPECT_TRUE(torch::equal(fastMatmulNoGrad(a, b[0]), a.matmul(b[0])));
}

TEST(Muon, VarianceNormalizationEqualizesTheLongerSideAndKeepsTheNorm) {
  torch::manual_seed(2);
  // Tall: one statistic per row.
  const torch::Tensor tall = torch::randn({8, 3});
  torch::Tensor v_tall = torch::zeros({8, 1});
  const torch::Tensor out = normalizeVariance(tall, v_tall, 0.95);
  EXPECT_NEAR(out.norm().item<double>(), tall.norm().item<double>(), 1e-5);
  const torch::Tensor row_norms = out.norm(2, {1});
  EXPECT_TRUE(torch::allclose(row_norms, row_norms.mean().expand_as(row_norms), 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(v_tall, 0.05 * tall.square().mean({1}, true), 1e-6, 1e-8));
  // Second call: EMA 0.95 old + 0.05 new.
  const torch::Tensor tall2 = torch::randn({8, 3});
  const torch::Tensor expected = 0.95 * v_tall + 0.05 * tall2.square().mean({1}, true);
  normalizeVariance(tall2, v_tall, 0.95);
  EXPECT_TRUE(torch::allclose(v_tall, expected, 1e-6, 1e-8));
  // Wide: one statistic per column; columns come out with equal norms.
  const torch::Tensor wide = torch::randn({3, 8});
  torch::Tensor v_wide = torch::zeros({1, 8});
  const torch::Tensor out_wide = normalizeVariance(wide, v_wide, 0.95);
  const torch::Tensor col_norms = out_wide.norm(2, {0});
  EXPECT_TRUE(torch::allclose(col_norms, col_norms.mean().expand_as(col_norms), 1e-5, 1e-6));
  EXPECT_NEAR(out_wide.norm().item<double>(), wide.norm().item<double>(), 1e-5);
  EXPECT_EQ(muonVarianceShape(8, 3), (std::vector<int64_t>{8, 1}));
  EXPECT_EQ(muonVarianceShape(3, 8), (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(muonVarianceShape(4, 4), (std::vector<int64_t>{4, 1}));
}

TEST(Muon, CautiousWeightDecayOnlyWhereUpdateAndWeightAgree) {
  torch::Tensor w = torch::tensor({{1.0, -1.0, 2.0}, {-2.0, 0.0, 3.0}}, torch::kFloat64);
  const torch::Tensor x = torch::tensor({{0.5, 0.5, -0.5}, {-0.5, 0.5, 0.0}}, torch::kFloat64);
  applyCautiousUpdate(w, x, /*step_size=*/0.1, /*weight_decay=*/0.2);
  // products X W: 0.5 (decay), -0.5 (none), -1 (none), 1 (decay), 0 (decay: >= 0, W = 0),
  // 0 (decay: X = 0). Decayed entries lose 0.1 * 0.2 * W = 0.02 W.
  const torch::Tensor expected = torch::tensor(
      {{1.0 - 0.05 - 0.02, -1.0 - 0.05, 2.0 + 0.05}, {-2.0 + 0.05 + 0.04, 0.0 - 0.05, 3.0 - 0.06}},
      torch::kFloat64);
  EXPECT_TRUE(torch::allclose(w, expected, 0, 1e-15)) << w;
}

TEST(Muon, MomentumWarmsUpFrom085To095Over300Steps) {
  EXPECT_DOUBLE_EQ(muonMomentum(0), 0.85);
  EXPECT_DOUBLE_EQ(muonMomentum(150), 0.90);
  EXPECT_DOUBLE_EQ(muonMomentum(299), 0.85 + 0.10 * 299.0 / 300.0);
  EXPECT_DOUBLE_EQ(muonMomentum(300), 0.95);
  EXPECT_DOUBLE_EQ(muonMomentum(5000), 0.95);
}

// The ramp is an option (train.muon_momentum_steps): a 45-step ramp reaches 0.95 at step 45,
// and 0 steps is 0.95 from the first update.
TEST(Muon, MomentumRampLengthIsAnOption) {
  EXPECT_DOUBLE_EQ(muonMomentum(0, 45), 0.85);
  EXPECT_NEAR(muonMomentum(15, 45), 0.85 + 0.10 / 3.0, 1e-15);
  EXPECT_DOUBLE_EQ(muonMomentum(45, 45), 0.95);
  EXPECT_DOUBLE_EQ(muonMomentum(0, 0), 0.95);
  EXPECT_DOUBLE_EQ(muonMomentum(150), muonMomentum(150, 300));
  EXPECT_THROW(muonMomentum(1, -1), std::invalid_argument);
}

TEST(Muon, ParametersWithoutGradientAreLeftAlone) {
  torch::Tensor used = torch::randn({4, 3}).requires_grad_(true);
  torch::Tensor unused = torch::randn({4, 3}).requires_grad_(true);
  const torch::Tensor unused_before = unused.detach().clone();
  MuonOptions options;
  options.weight_decay = 0.5;
  Muon muon({{used}, {unused}}, options);
  used.mutable_grad() = torch::randn({4, 3});
  muon.step(0.1, muonMomentum(0));
  EXPECT_TRUE(torch::equal(unused.detach(), unused_before));  // no decay either
  EXPECT_EQ(muon.momentum(1).abs().sum().item<double>(), 0.0);
  EXPECT_GT(muon.momentum(0).abs().sum().item<double>(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// ParamGroups

AdamWGroup adamwGroup(const std::string& name, double lr, double eps, double weight_decay,
                      std::vector<torch::Tensor> parameters) {
  AdamWGroup group;
  group.options.name = name;
  group.options.lr = lr;
  group.options.beta1 = 0.8;
  group.options.beta2 = 0.95;
  group.options.eps = eps;
  group.options.weight_decay = weight_decay;
  group.parameters = std::move(parameters);
  return group;
}

struct TinyModel {
  std::vector<torch::Tensor> matrices;  // Muon
  torch::Tensor embedding, head;        // AdamW, one group each
  std::vector<torch::Tensor> all() const {
    std::vector<torch::Tensor> out = matrices;
    out.push_back(embedding);
    out.push_back(head);
    return out;
  }
};

TinyModel makeModel(int64_t seed) {
  torch::manual_seed(seed);
  TinyModel m;
  for (const auto& shape : std::vector<std::vector<int64_t>>{{6, 4}, {4, 6}, {8, 4}, {6, 4}})
    m.matrices.push_back(torch::randn(shape).mul_(0.2).requires_grad_(true));
  m.embedding = torch::randn({10, 4}).requires_grad_(true);
  m.head = torch::randn({10, 4}).mul_(0.1).requires_grad_(true);
  return m;
}

TinyModel cloneModel(const TinyModel& m) {
  TinyModel c;
  for (const auto& t : m.matrices) c.matrices.push_back(t.detach().clone().requires_grad_(true));
  c.embedding = m.embedding.detach().clone().requires_grad_(true);
  c.head = m.head.detach().clone().requires_grad_(true);
  return c;
}

ParamGroups makeGroups(const TinyModel& m) {
  MuonGroup muon;
  muon.lr = 0.04;
  muon.options.weight_decay = 0.07;
  for (size_t i = 0; i < m.matrices.size(); ++i)
    muon.parameters.push_back({m.matrices[i], i == 2 ? 2 : 1});  // (8, 4) as two (4, 4) blocks
  return ParamGroups(std::move(muon), {adamwGroup("embedding", 0.3, 1e-10, 0.0, {m.embedding}),
                                       adamwGroup("head", 0.008, 1e-10, 0.0, {m.head})});
}

void setGradients(const TinyModel& m, int64_t step) {
  const auto params = m.all();
  for (size_t i = 0; i < params.size(); ++i)
    params[i].mutable_grad() = gradientFor(params[i], static_cast<int64_t>(i), step);
}

TEST(ParamGroups, SaveLoadRoundTripGivesIdenticalNextSteps) {
  TinyModel a = makeModel(1);
  ParamGroups opt_a = makeGroups(a);
  for (int64_t s = 0; s < 3; ++s) {
    setGradients(a, s);
    opt_a.step(s, 0.5 + 0.1 * s);
  }
  std::stringstream buffer;
  {
    torch::serialize::OutputArchive archive;
    opt_a.save(archive, "optim.");
    archive.save_to(buffer);
  }
  TinyModel b = cloneModel(a);
  ParamGroups opt_b = makeGroups(b);
  {
    torch::serialize::InputArchive archive;
    archive.load_from(buffer);
    opt_b.load(archive, "optim.");
  }
  EXPECT_EQ(opt_b.adamwStepCount(b.embedding), 3);
  for (int64_t s = 3; s < 5; ++s) {
    setGradients(a, s);
    setGradients(b, s);
    opt_a.step(s, 1.0);
    opt_b.step(s, 1.0);
  }
  const auto pa = a.all(), pb = b.all();
  for (size_t i = 0; i < pa.size(); ++i)
    EXPECT_TRUE(torch::equal(pa[i].detach(), pb[i].detach())) << "parameter " << i;
}

TEST(ParamGroups, LoadingAnotherModelsStateFailsAndChangesNothing) {
  TinyModel a = makeModel(1);
  ParamGroups opt_a = makeGroups(a);
  setGradients(a, 0);
  opt_a.step(0, 1.0);
  std::stringstream buffer;
  {
    torch::serialize::OutputArchive archive;
    opt_a.save(archive, "");
    archive.save_to(buffer);
  }
  TinyModel other = makeModel(2);
  other.head = torch::randn({12, 4}).requires_grad_(true);  // a different vocabulary
  ParamGroups opt_other = makeGroups(other);
  torch::serialize::InputArchive archive;
  archive.load_from(buffer);
  EXPECT_THROW(opt_other.load(archive, ""), c10::Error);
  EXPECT_EQ(opt_other.adamwStepCount(other.embedding), 0);
  EXPECT_EQ(opt_other.muon().momentum(0).abs().sum().item<double>(), 0.0);
}

TEST(ParamGroups, ResetStateMakesChosenParametersStartFresh) {
  TinyModel a = makeModel(1);
  ParamGroups opt_a = makeGroups(a);
  for (int64_t s = 0; s < 4; ++s) {
    setGradients(a, s);
    opt_a.step(s, 1.0);
  }
  // Growth at step 4: matrices 1 (the only (4, 6)) and the embedding get fresh state.
  opt_a.resetState({a.matrices[1], a.embedding});
  EXPECT_EQ(opt_a.adamwStepCount(a.embedding), 0);
  EXPECT_EQ(opt_a.adamwStepCount(a.head), 4);
  EXPECT_EQ(opt_a.muon().momentum(1).abs().sum().item<double>(), 0.0);
  EXPECT_EQ(opt_a.muon().variance(1).abs().sum().item<double>(), 0.0);
  EXPECT_GT(opt_a.muon().momentum(0).abs().sum().item<double>(), 0.0);
  // Their next update equals a brand-new optimizer's first update at the same step.
  TinyModel fresh = cloneModel(a);
  ParamGroups opt_fresh = makeGroups(fresh);
  setGradients(a, 4);
  setGradients(fresh, 4);
  opt_a.step(4, 1.0);
  opt_fresh.step(4, 1.0);
  EXPECT_TRUE(torch::allclose(a.matrices[1].detach(), fresh.matrices[1].detach(), 0, 1e-7));
  EXPECT_TRUE(torch::allclose(a.embedding.detach(), fresh.embedding.detach(), 0, 1e-7));
  EXPECT_FALSE(torch::allclose(a.head.detach(), fresh.head.detach(), 0, 1e-7));
  EXPECT_THROW(opt_a.resetState({torch::zeros({2, 2})}), std::invalid_argument);
}

TEST(ParamGroups, AdamWIsBiasCorrectedWithEpsOutsideTheRoot) {
  // Hand computation in double for two steps; eps 1e-3 is comparable to sqrt(v_hat) here, so
  // eps inside the root (sqrt(v_hat + eps)) would be far off, as would a missing correction.
  torch::Tensor p = torch::tensor({0.5, -0.25, 1.0}, torch::kFloat64).requires_grad_(true);
  ParamGroups opt(MuonGroup{},
                  {adamwGroup("embedding", /*lr=*/0.1, /*eps=*/1e-3, /*wd=*/0.01, {p})});
  const std::vector<std::vector<double>> grads = {{1e-3, -2e-3, 5e-4}, {-1e-3, 1e-3, 2e-3}};
  std::vector<double> w = {0.5, -0.25, 1.0}, m(3, 0.0), v(3, 0.0);
  const double multiplier = 0.5;  // lr 0.05 after the schedule
  for (int t = 1; t <= 2; ++t) {
    p.mutable_grad() = torch::tensor(grads[static_cast<size_t>(t - 1)], torch::kFloat64);
    opt.step(t - 1, multiplier);
    const double lr = 0.1 * multiplier;
    for (size_t k = 0; k < 3; ++k) {
      const double g = grads[static_cast<size_t>(t - 1)][k];
      w[k] *= 1 - lr * 0.01;
      m[k] = 0.8 * m[k] + 0.2 * g;
      v[k] = 0.95 * v[k] + 0.05 * g * g;
      const double m_hat = m[k] / (1 - std::pow(0.8, t));
      const double v_hat = v[k] / (1 - std::pow(0.95, t));
      w[k] -= lr * m_hat / (std::sqrt(v_hat) + 1e-3);
    }
    for (size_t k = 0; k < 3; ++k)
      EXPECT_NEAR(p[static_cast<int64_t>(k)].item<double>(), w[k], 1e-14) << "step " << t;
  }
  EXPECT_EQ(opt.adamwStepCount(p), 2);
  EXPECT_DOUBLE_EQ(opt.learningRate("embedding", 0.5), 0.05);
}

TEST(ParamGroups, StepUsesTheMultiplierAndTheGlobalStepsMomentum) {
  // ParamGroups at step 200 with multiplier 0.5 == a bare Muon with lr 0.04 x 0.5 and mu(200).
  torch::manual_seed(9);
  torch::Tensor a = torch::randn({6, 4}).requires_grad_(true);
  torch::Tensor b = a.detach().clone().requires_grad_(true);
  MuonGroup group;
  group.lr = 0.04;
  group.options.weight_decay = 0.1;
  group.parameters.push_back({a});
  ParamGroups groups(group, {});
  Muon bare({{b}}, group.options);
  const torch::Tensor g = torch::randn({6, 4});
  a.mutable_grad() = g.clone();
  b.mutable_grad() = g.clone();
  groups.step(200, 0.5);
  bare.step(0.02, muonMomentum(200));
  EXPECT_TRUE(torch::equal(a.detach(), b.detach()));
  EXPECT_TRUE(torch::equal(groups.muon().momentum(0), bare.momentum(0)));
  EXPECT_DOUBLE_EQ(groups.learningRate("muon", 0.5), 0.02);
  groups.zeroGrad();
  EXPECT_FALSE(a.grad().defined());
}

TEST(ParamGroups, RejectsATensorInTwoGroups) {
  torch::Tensor shared = torch::randn({4, 3}).requires_grad_(true);
  MuonGroup muon;
  muon.parameters.push_back({shared});
  EXPECT_THROW(ParamGroups(muon, {adamwGroup("head", 0.1, 1e-10, 0.0, {shared})}),
               std::invalid_argument);
}

}  // namespace
}  // namespace deepladder::trainers
