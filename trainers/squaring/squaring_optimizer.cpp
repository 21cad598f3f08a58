// AdamW, or Muon + AdamW groups, for the squaring model (see squaring_optimizer.h).
#include "trainers/squaring/squaring_optimizer.h"

#include <stdexcept>
#include <utility>

#include "trainers/adamw.h"
#include "trainers/lr_schedule.h"
#include "trainers/param_groups.h"

namespace deepladder::trainers::squaring {

namespace {

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// learningRate(train, step) / lr: the schedule as a multiplier of every base rate.
double scheduleMultiplier(const TrainConfig& train, int64_t step) {
  return train.lr > 0 ? trainers::learningRate(train, step) / train.lr : 0.0;
}

// --- AdamW for everything ------------------------------------------------------------------------

class AdamWSquaringOptimizer : public SquaringOptimizer {
 public:
  AdamWSquaringOptimizer(const TrainConfig& train, SquaringModel& model) : train_(train) {
    AdamWOptions options;
    options.beta1 = train.beta1;
    options.beta2 = train.beta2;
    options.eps = train.eps;
    options.weight_decay = train.weight_decay;
    adamw_ = std::make_unique<AdamW>(model->parameters(), options);
  }
  void zeroGrad() override { adamw_->zeroGrad(); }
  double clipGradNorm(double max_norm) override { return adamw_->clipGradNorm(max_norm); }
  void step(int64_t step) override { adamw_->step(learningRate(step)); }
  double learningRate(int64_t step) const override { return trainers::learningRate(train_, step); }
  std::vector<std::pair<std::string, double>> baseRates() const override {
    return {{"adamw", train_.lr}};
  }
  CheckpointRecord save(const std::string& workdir, SquaringModel& model,
                        const TrainingState& state) const override {
    return saveCheckpoint(workdir, *model, *adamw_, state);
  }
  std::optional<TrainingState> loadNewest(const std::string& workdir, const std::string& hash,
                                          SquaringModel& model,
                                          std::vector<std::string>* skipped) override {
    return loadNewestValidCheckpoint(workdir, hash, *model, *adamw_, skipped);
  }

 private:
  TrainConfig train_;
  std::unique_ptr<AdamW> adamw_;
};

// --- Muon for block matrices, AdamW for the rest ----------------------------------------------

class MuonSquaringOptimizer : public SquaringOptimizer {
 public:
  MuonSquaringOptimizer(const TrainConfig& train, SquaringModel& model) : train_(train) {
    const bool swiglu = model->mlp_kind == MlpKind::swiglu;
    MuonGroup muon;
    muon.lr = train.lr;
    muon.options.weight_decay = train.weight_decay;
    muon.options.cautious_weight_decay = train.cautious_weight_decay;
    auto adamw = [&](const std::string& name, double lr) {
      AdamWGroup group;
      group.options.name = name;
      group.options.lr = lr > 0 ? lr : train.lr;
      group.options.beta1 = train.beta1;
      group.options.beta2 = train.beta2;
      group.options.eps = train.eps;
      group.options.weight_decay = 0.0;
      return group;
    };
    AdamWGroup embedding = adamw("embedding", train.embed_lr);
    AdamWGroup head = adamw("head", train.head_lr);
    AdamWGroup gains = adamw("gains", train.lr);
    for (const auto& item : model->named_parameters()) {
      const std::string& name = item.key();
      const torch::Tensor& p = item.value();
      params_.push_back(p);
      if (name == "token_embedding.weight" || name == "positions") {
        embedding.parameters.push_back(p);
      } else if (name == "head.weight") {
        head.parameters.push_back(p);
      } else if (endsWith(name, "attn.qkv.weight")) {
        muon.parameters.push_back({p, 3});  // q, k, v
      } else if (endsWith(name, "mlp.up.weight")) {
        muon.parameters.push_back({p, swiglu ? 2 : 1});  // (gate, up) or up
      } else if (endsWith(name, "attn.proj.weight") || endsWith(name, "mlp.down.weight")) {
        muon.parameters.push_back({p, 1});
      } else if (p.dim() == 1) {
        gains.parameters.push_back(p);
      } else {
        throw std::logic_error("squaring muon: no optimizer group for parameter " + name);
      }
    }
    std::vector<AdamWGroup> groups{embedding};
    if (!head.parameters.empty()) groups.push_back(head);
    if (!gains.parameters.empty()) groups.push_back(gains);
    groups_ = std::make_unique<ParamGroups>(std::move(muon), std::move(groups));
  }
  void zeroGrad() override { groups_->zeroGrad(); }
  double clipGradNorm(double max_norm) override {
    return trainers::clipGradNorm(params_, max_norm);
  }
  void step(int64_t step) override { groups_->step(step, scheduleMultiplier(train_, step)); }
  double learningRate(int64_t step) const override {
    return groups_->learningRate("muon", scheduleMultiplier(train_, step));
  }
  std::vector<std::pair<std::string, double>> baseRates() const override {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& name : groups_->groupNames())
      out.emplace_back(name, groups_->learningRate(name, 1.0));
    return out;
  }
  CheckpointRecord save(const std::string& workdir, SquaringModel& model,
                        const TrainingState& state) const override {
    return saveCheckpoint(workdir, *model, *groups_, state);
  }
  std::optional<TrainingState> loadNewest(const std::string& workdir, const std::string& hash,
                                          SquaringModel& model,
                                          std::vector<std::string>* skipped) override {
    return loadNewestValidCheckpoint(workdir, hash, *model, *groups_, skipped);
  }

 private:
  TrainConfig train_;
  std::unique_ptr<ParamGroups> groups_;
  std::vector<torch::Tensor> params_;  // every parameter, for gradient clipping
};

}  // namespace

std::unique_ptr<SquaringOptimizer> SquaringOptimizer::create(const TrainConfig& train,
                                                             SquaringModel& model) {
  switch (train.optimizer) {
    case OptimizerKind::adamw:
      return std::make_unique<AdamWSquaringOptimizer>(train, model);
    case OptimizerKind::muon:
      return std::make_unique<MuonSquaringOptimizer>(train, model);
  }
  throw std::logic_error("SquaringOptimizer::create: an optimizer kind without an implementation");
}

}  // namespace deepladder::trainers::squaring
