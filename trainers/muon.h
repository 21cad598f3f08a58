// Muon for the block matrices of the growth-ladder recipe: Nesterov momentum with a
// warmup of mu, row normalization, five Polar-Express iterations in bf16, a NorMuon-style variance
// normalization and cautious weight decay. The embedding and the head are not Muon's: see
// param_groups.h, which runs this beside AdamW.
//
// One update of a matrix W (rows x cols, the PyTorch Linear layout out x in) with gradient G:
//   mu  = 0.85 + 0.10 min(step/ramp, 1)                (step: 0-based update index; ramp 300)
//   M  <- mu M + (1 - mu) G                            (momentum buffer, fp32)
//   G' <- (1 - mu) G + mu M                            (Nesterov)
//   G' <- each row of G' divided by max(its L2 norm, 1e-7)   (zero rows stay zero)
//   X   = G' / (1.02 ||G'||_F + 1e-6)                   in bf16
//   5x: X <- a X + X (b A + c A^2), A = X^T X           (rows > cols)
//       X <- a X + (b A + c A^2) X, A = X X^T           (rows <= cols)
//   m   = mean of X^2 over the shorter side: one value per row (rows >= cols) or per column
//   V  <- 0.95 V + 0.05 m;  X <- X / sqrt(V) * (||X||_F / ||X / sqrt(V)||_F)
//   eta = lr sqrt(max(1, rows/cols))
//   W  <- W - eta X - eta wd W [X W >= 0]               (elementwise mask, W before the update)
// Each choice that the recipe's wording leaves open is explained where it is made (muon.cpp).
//
// Scalars (MuonOptions::exact_scalars = false, the growth paper's muon_step_fused as eager PyTorch
// evaluates it): the paper casts each scalar to the dtype of the orthogonalized X
// (lr_t.to(g.dtype)), so they follow the orthogonalization dtype (MuonOptions::scalar_dtype
// overrides it): with bf16, eta, wd and beta are each rounded to float32 and then to bfloat16, the
// decay factor is bf16(bf16(eta) bf16(wd)), the variance scale is rounded to bfloat16 and X times
// it, and eta times that, are rounded to bfloat16; with float32 the same happens in float32. 1 - mu
// is taken in float32 either way; then
//   W <- W - (round(eta_s X) + (eta wd)_s W [X W >= 0])   in float32.
// With exact_scalars every scalar is used as the double it is and nothing is rounded on the way.
//
// What it does not do: it never touches a parameter whose .grad is undefined (an unused core of a
// grow arm before its crossover keeps its weights and state), and it does not own the learning
// rate schedule (the caller passes lr and mu each step).
#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace deepladder::trainers {

// ---------------------------------------------------------------------------------------------
// The pieces, exposed so tests can check each against an independent implementation.

// The five (a, b, c) triples of Polar Express (Amsel et al. 2025, safety factor 2e-2), as in the
// recipe.
const std::array<std::array<double, 3>, 5>& polarExpressCoefficients();

// mu = 0.85 + 0.10 min(step / ramp_steps, 1) for the 0-based update index `step` (the recipe's
// ramp is 300 steps, train.muon_momentum_steps; a ramp of 0 steps is 0.95 from the first).
double muonMomentum(int64_t step, int64_t ramp_steps = 300);

// (..., R, C) -> (..., R, C): every row divided by max(its L2 norm, 1e-7) (the growth paper's
// floor), so rows have unit norm and an all-zero row stays zero.
inline constexpr double kMuonRowNormFloor = 1e-7;
torch::Tensor normalizeRows(const torch::Tensor& g, double floor = kMuonRowNormFloor);

// `value` rounded to float32, then to bfloat16 (round to nearest even), as a double: what a
// scalar becomes when filled into a float32 tensor and cast .to(bfloat16).
double roundToBf16(double value);
// `value` as a scalar filled into a float32 tensor and cast .to(dtype) becomes: roundToBf16 for
// bfloat16, rounded to float32 (then half) for float32 (half), unchanged for float64.
double roundToDtype(double value, torch::ScalarType dtype);

// (..., R, C) -> (..., R, C) in `dtype`: scales by 1 / (1.02 ||.||_F + 1e-6) per matrix and runs
// the five Polar-Express iterations, all in `dtype` (bf16 in the recipe; float64 lets a test
// check the algebra exactly). The result approximates the polar factor U V^T.
torch::Tensor polarExpress(const torch::Tensor& g, torch::Dtype dtype = torch::kBFloat16);

// Shape of the variance state of one (rows x cols) matrix: (rows, 1) when rows >= cols, else
// (1, cols): one value per entry of the longer side.
std::vector<int64_t> muonVarianceShape(int64_t rows, int64_t cols);

// (..., R, C) any float dtype -> (..., R, C) float32. Updates `variance` ((..., R, 1) or
// (..., 1, C), float32) in place with the EMA and returns X scaled by its inverse root, rescaled
// to X's Frobenius norm (per matrix). With `scale_dtype` (the paper's rounding), the scale is
// rounded to `scale_dtype` (the orthogonalized X's dtype) and the product X times it too.
torch::Tensor normalizeVariance(const torch::Tensor& x, torch::Tensor& variance, double beta,
                                std::optional<torch::ScalarType> scale_dtype = std::nullopt);

// sqrt(max(1, rows / cols)).
double muonStepScale(int64_t rows, int64_t cols);

// W <- W - eta X - eta wd W [X W >= 0], in place on `weight` (no autograd). `update` is X.
void applyCautiousUpdate(torch::Tensor& weight, const torch::Tensor& update, double step_size,
                         double weight_decay);
// The same as the growth paper computes it (see the header comment): eta and wd rounded to
// `update_dtype` (the orthogonalized X's dtype), eta X and eta wd rounded to it too,
// W <- W - (eta_s X + (eta wd)_s W mask), where mask is [X W >= 0] when `cautious` and 1
// otherwise.
void applyPaperUpdate(torch::Tensor& weight, const torch::Tensor& update, double step_size,
                      double weight_decay, bool cautious, torch::ScalarType update_dtype);

// ---------------------------------------------------------------------------------------------
// The optimizer.

// Applies `orthogonalize` to every tensor of `batches`, replacing each in place (same shape and
// dtype). Left empty, Muon does it itself; a data-parallel run sets one that has each rank compute
// a share and share the results (trainers/distributed.h shardedApply), which gives the same
// update as one rank computing them all.
using MatrixMap = std::function<torch::Tensor(const torch::Tensor&)>;
using BatchOrthogonalizer =
    std::function<void(const std::vector<torch::Tensor>& batches, const MatrixMap& orthogonalize)>;

struct MuonOptions {
  double weight_decay = 0.0;    // wd of the cautious decay (multiplied by eta)
  double variance_beta = 0.95;  // EMA factor of the variance normalization
  // Dtype of the Polar-Express iterations. bf16 is the recipe; float32 is an option for CPUs
  // without fast bf16 matmuls (not the recipe: say so when you use it).
  torch::Dtype orthogonalization_dtype = torch::kBFloat16;
  // true: the recipe's cautious decay W <- W - eta wd W [X W >= 0]; false: plain decoupled
  // decay W <- W - eta wd W everywhere.
  bool cautious_weight_decay = true;
  // false: the growth paper's scalar rounding (see the header comment; the run option
  // train.muon_exact_scalars = false); true: exact scalars.
  bool exact_scalars = true;
  // The dtype the paper's rounding casts scalars to; empty: orthogonalization_dtype, as the paper
  // casts them to the orthogonalized X's dtype. Unused with exact_scalars.
  std::optional<torch::ScalarType> scalar_dtype;
  double row_norm_floor = kMuonRowNormFloor;  // the row normalization's floor
  BatchOrthogonalizer orthogonalizer;         // empty: every matrix here (see BatchOrthogonalizer)
};

// A parameter for Muon. A fused weight (q, k, v stacked as (3 d, d), or SwiGLU gate and up as
// (2 H, d)) is `row_blocks` matrices stacked along rows: each block is orthogonalized, normalized
// and scaled (sqrt(max(1, rows/cols)) with the block's rows) as its own matrix, exactly as if the
// model held them separately.
struct MuonParameter {
  torch::Tensor tensor;    // (rows, cols), float32
  int64_t row_blocks = 1;  // rows % row_blocks == 0
};

class Muon {
 public:
  Muon(std::vector<MuonParameter> parameters, MuonOptions options);

  // One update with learning rate `lr` and momentum `momentum` (muonMomentum(step) in the
  // recipe). Parameters whose .grad is undefined are skipped.
  void step(double lr, double momentum);

  // Fresh state (zero momentum and variance) for `parameter`; false if it is not one of ours.
  bool resetState(const torch::Tensor& parameter);
  // Growth: copies the state of every parameter this optimizer shares with `previous` (the same
  // tensor, matched by identity); parameters new to this one keep their fresh zero state.
  void inheritState(const Muon& previous);

  const std::vector<MuonParameter>& parameters() const { return parameters_; }
  const MuonOptions& options() const { return options_; }
  // State of parameter i: momentum (rows, cols) and variance (row_blocks, ...) float32.
  const torch::Tensor& momentum(size_t i) const { return momentum_[i]; }
  const torch::Tensor& variance(size_t i) const { return variance_[i]; }

  // State under "<prefix>momentum.<i>" and "<prefix>variance.<i>".
  void save(torch::serialize::OutputArchive& archive, const std::string& prefix) const;
  // Reads and checks everything before changing anything: a bad archive leaves it untouched.
  void load(torch::serialize::InputArchive& archive, const std::string& prefix);

 private:
  // Parameters whose blocks have the same shape run as one batch.
  struct ShapeBatch {
    int64_t rows = 0;  // rows of one block
    int64_t cols = 0;
    std::vector<size_t> members;  // indices into parameters_
  };
  std::vector<MuonParameter> parameters_;
  std::vector<torch::Tensor> momentum_;  // (rows, cols) each
  std::vector<torch::Tensor> variance_;  // (row_blocks, block_rows, 1) or (row_blocks, 1, cols)
  std::vector<ShapeBatch> batches_;
  MuonOptions options_;
};

}  // namespace deepladder::trainers
