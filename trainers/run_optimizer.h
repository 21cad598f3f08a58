// The optimizer of one training run as a training loop sees it, for both trainers (the LM's GPT
// and the serial task's SquaringModel): builds the one train.optimizer names over a model's
// parameters, applies the learning-rate schedule, grows with a GPT, and reads and writes its whole
// state for checkpoints.
//   "adamw"  one AdamW over every parameter (trainers/adamw.h) at learningRate(train, step)
//            (trainers/lr_schedule.h) x the growth re-warm.
//   "muon"   the growth recipe's groups (trainers/param_groups.h): Muon for every block matrix
//            (the fused q/k/v weight as 3 row blocks, the fused SwiGLU gate/up as 2, so each
//            projection is orthogonalized as its own matrix) at train.lr with train.weight_decay
//            (cautious when train.cautious_weight_decay); AdamW (betas, eps of [train]) for the
//            embeddings (token embedding, learned positions) at embed_lr and the head at head_lr
//            (0 = train.lr; a tied embedding is one "embedding" group), both with
//            train.weight_decay as the growth paper's code applies it: decoupled and not
//            cautious, p *= 1 - lr wd every step at the group's own scheduled rate (none with
//            train.embed_head_weight_decay = false); norm gains, if the model has any, in an
//            AdamW group "gains" at train.lr without decay. Every rate is base x
//            scheduleMultiplier(train, step) x re-warm (trainers/lr_schedule.h: the recipe's
//            exact WSD for schedule = "wsd", the cosine otherwise).
// Growth (grow()): the model grows, the optimizer is rebuilt over the grown parameters, keeps the
// state of the parameters it had, and the copied blocks start with fresh state (zero moments).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/run_config.h"
#include "trainers/gpt.h"
#include "trainers/muon.h"

namespace deepladder::trainers {

class RunOptimizer {
 public:
  virtual ~RunOptimizer() = default;

  // The optimizer train.optimizer names, over `model`'s parameters (build it after moving the
  // model to its device); `mlp` says how Muon splits the MLP's up projection (SwiGLU: gate and
  // up). `orthogonalizer` (Muon only; empty: local) shares the orthogonalizations out across
  // data-parallel ranks. A parameter no group takes is a bug (std::logic_error).
  static std::unique_ptr<RunOptimizer> create(const TrainConfig& train, torch::nn::Module& model,
                                              MlpKind mlp, BatchOrthogonalizer orthogonalizer = {});
  // The same over a GPT (its config's MLP).
  static std::unique_ptr<RunOptimizer> create(const TrainConfig& train, GPT& model,
                                              BatchOrthogonalizer orthogonalizer = {});

  virtual void zeroGrad() = 0;
  // Scales the gradients to a global L2 norm of at most `max_norm` (0: no clipping) and returns
  // the norm before clipping.
  virtual double clipGradNorm(double max_norm) = 0;
  // The update at 0-based step `step`, every rate times `rewarm` (trainers/growth.h; 1 for a
  // model that does not grow).
  virtual void step(int64_t step, double rewarm = 1.0) = 0;
  // The learning rate of the matrices (train.lr's group) at that step and re-warm.
  virtual double learningRate(int64_t step, double rewarm = 1.0) const = 0;
  // Group names with their base rates, e.g. {"muon", 0.02}, {"embedding", 0.01} (tests, logs).
  virtual std::vector<std::pair<std::string, double>> baseRates() const = 0;
  // Grows `model` (GPTImpl::grow) and rebuilds the optimizer over it; returns the event detail.
  virtual std::string grow(GPT& model) = 0;

  virtual void save(torch::serialize::OutputArchive& archive, const std::string& prefix) const = 0;
  // Reads and checks everything before changing anything.
  virtual void load(torch::serialize::InputArchive& archive, const std::string& prefix) = 0;
};

}  // namespace deepladder::trainers
