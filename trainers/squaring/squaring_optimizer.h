// The squaring trainer's optimizer, built from train.optimizer over a SquaringModel. Every key of
// [train] that concerns the optimizer is honoured here or refused by validate() (never ignored):
//   "adamw"  one AdamW (trainers/adamw.h) over every parameter: lr, beta1, beta2, eps,
//            weight_decay (on matrices and embeddings), grad_clip; embed_lr, head_lr and
//            cautious_weight_decay are refused for it.
//   "muon"   Muon (trainers/muon.h) for the block matrices (the fused q/k/v weight as 3 row
//            blocks, the MLP's up (SwiGLU: gate and up as 2) and down, attention's out) at lr
//            with weight_decay, cautious when cautious_weight_decay; AdamW groups (beta1,
//            beta2, eps, no decay) for the token embedding and the learned positions at embed_lr,
//            the untied head at head_lr (0 = lr) and the norm gains at lr. Gradients are clipped
//            to grad_clip over all parameters.
// Both follow train.schedule (cosine or wsd, warmup_steps, decay_fraction, min_lr_ratio): every
// rate is its base rate x learningRate(train, step) / lr (trainers/lr_schedule.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/run_config.h"
#include "trainers/checkpoint.h"
#include "trainers/squaring/squaring_model.h"

namespace deepladder::trainers::squaring {

class SquaringOptimizer {
 public:
  virtual ~SquaringOptimizer() = default;
  // Build it after moving the model to its device.
  static std::unique_ptr<SquaringOptimizer> create(const TrainConfig& train, SquaringModel& model);

  virtual void zeroGrad() = 0;
  // Clips the gradients to a global L2 norm of at most `max_norm` (0: none); the norm before.
  virtual double clipGradNorm(double max_norm) = 0;
  virtual void step(int64_t step) = 0;  // the update at 0-based step `step`
  // The matrices' rate at that step (lr x the schedule).
  virtual double learningRate(int64_t step) const = 0;
  // Group names with their base rates, e.g. {"muon", 0.02}, {"embedding", 0.01} (for tests and
  // the run's log).
  virtual std::vector<std::pair<std::string, double>> baseRates() const = 0;

  virtual CheckpointRecord save(const std::string& workdir, SquaringModel& model,
                                const TrainingState& state) const = 0;
  virtual std::optional<TrainingState> loadNewest(const std::string& workdir,
                                                  const std::string& config_hash,
                                                  SquaringModel& model,
                                                  std::vector<std::string>* skipped) = 0;
};

}  // namespace deepladder::trainers::squaring
