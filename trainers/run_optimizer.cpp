// AdamW or Muon + AdamW groups for the training loop (see run_optimizer.h).
#include "trainers/run_optimizer.h"

#include <utility>
#include <vector>

#include "core/errors.h"
#include "trainers/adamw.h"
#include "trainers/lr_schedule.h"
#include "trainers/param_groups.h"

namespace deepladder::trainers {

namespace {

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// --- AdamW for everything ------------------------------------------------------------------------

class AdamWRunOptimizer : public RunOptimizer {
 public:
  AdamWRunOptimizer(const TrainConfig& train, torch::nn::Module& model) : train_(train) {
    options_.beta1 = train.beta1;
    options_.beta2 = train.beta2;
    options_.eps = train.eps;
    options_.weight_decay = train.weight_decay;
    adamw_ = std::make_unique<AdamW>(model.parameters(), options_);
  }
  void zeroGrad() override { adamw_->zeroGrad(); }
  double clipGradNorm(double max_norm) override { return adamw_->clipGradNorm(max_norm); }
  void step(int64_t step, double rewarm) override { adamw_->step(learningRate(step, rewarm)); }
  double learningRate(int64_t step, double rewarm) const override {
    return trainers::learningRate(train_, step) * rewarm * train_.lr_mult;
  }
  std::vector<std::pair<std::string, double>> baseRates() const override {
    return {{"adamw", train_.lr * train_.lr_mult}};
  }
  std::string grow(GPT& model) override {
    const std::string detail = model->grow();
    auto grown = std::make_unique<AdamW>(model->parameters(), options_);
    grown->inheritState(*adamw_);
    adamw_ = std::move(grown);
    return detail;
  }
  void save(torch::serialize::OutputArchive& archive, const std::string& prefix) const override {
    adamw_->save(archive, prefix);
  }
  void load(torch::serialize::InputArchive& archive, const std::string& prefix) override {
    adamw_->load(archive, prefix);
  }

 private:
  TrainConfig train_;
  AdamWOptions options_;
  std::unique_ptr<AdamW> adamw_;
};

// --- Muon for block matrices, AdamW for embedding and head ---------------------------------------

class MuonRunOptimizer : public RunOptimizer {
 public:
  MuonRunOptimizer(const TrainConfig& train, torch::nn::Module& model, MlpKind mlp,
                   BatchOrthogonalizer orthogonalizer)
      : train_(train), mlp_(mlp), orthogonalizer_(std::move(orthogonalizer)) {
    groups_ = build(model);
  }
  void zeroGrad() override { groups_->zeroGrad(); }
  double clipGradNorm(double max_norm) override {
    return trainers::clipGradNorm(params_, max_norm);
  }
  void step(int64_t step, double rewarm) override {
    groups_->step(step, scheduleMultiplier(train_, step) * rewarm);
  }
  double learningRate(int64_t step, double rewarm) const override {
    return groups_->learningRate("muon", scheduleMultiplier(train_, step) * rewarm);
  }
  std::vector<std::pair<std::string, double>> baseRates() const override {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& name : groups_->groupNames())
      out.emplace_back(name, groups_->learningRate(name, 1.0));
    return out;
  }
  std::string grow(GPT& model) override {
    std::vector<torch::Tensor> before = params_;
    const std::string detail = model->grow();
    auto grown = build(*model);
    grown->inheritState(*groups_);
    // The copied blocks' parameters are new tensors: fresh state (inheritState left them so;
    // said explicitly, since the recipe requires it).
    std::vector<torch::Tensor> added;
    for (const auto& p : params_) {
      bool old = false;
      for (const auto& q : before) old = old || q.is_same(p);
      if (!old) added.push_back(p);
    }
    grown->resetState(added);
    groups_ = std::move(grown);
    return detail;
  }
  void save(torch::serialize::OutputArchive& archive, const std::string& prefix) const override {
    groups_->save(archive, prefix);
  }
  void load(torch::serialize::InputArchive& archive, const std::string& prefix) override {
    groups_->load(archive, prefix);
  }

 private:
  std::unique_ptr<ParamGroups> build(torch::nn::Module& model) {
    const bool swiglu = mlp_ == MlpKind::swiglu;
    MuonGroup muon;
    // train.lr_mult scales every group's base rate together (a learning-rate sweep's knob).
    muon.lr = train_.lr * train_.lr_mult;
    muon.momentum_ramp_steps = train_.muon_momentum_steps;
    muon.options.weight_decay = train_.weight_decay;
    muon.options.cautious_weight_decay = train_.cautious_weight_decay;
    muon.options.orthogonalization_dtype =
        train_.muon_orthogonalization == TableDtype::fp32 ? torch::kFloat32 : torch::kBFloat16;
    muon.options.exact_scalars = train_.muon_exact_scalars;
    muon.options.row_norm_floor = train_.muon_row_norm_floor;
    muon.options.orthogonalizer = orthogonalizer_;
    auto adamw = [&](const std::string& name, double lr, double weight_decay) {
      AdamWGroup group;
      group.options.name = name;
      group.options.lr = (lr > 0 ? lr : train_.lr) * train_.lr_mult;
      group.options.beta1 = train_.beta1;
      group.options.beta2 = train_.beta2;
      group.options.eps = train_.eps;
      group.options.weight_decay = weight_decay;
      return group;
    };
    // The paper's embedding and head decay: decoupled, p *= 1 - lr wd at their own rates.
    const double embed_head_decay = train_.embed_head_weight_decay ? train_.weight_decay : 0.0;
    AdamWGroup embedding = adamw("embedding", train_.embed_lr, embed_head_decay);
    AdamWGroup head = adamw("head", train_.head_lr, embed_head_decay);
    AdamWGroup gains = adamw("gains", train_.lr, 0.0);
    params_.clear();
    // The names of both models: GPT (trainers/gpt.h) and SquaringModel (its learned positions
    // and untied "head").
    for (const auto& item : model.named_parameters()) {
      const std::string& name = item.key();
      const torch::Tensor& p = item.value();
      params_.push_back(p);
      if (name == "token_embedding.weight" || name == "positions") {
        embedding.parameters.push_back(p);
      } else if (name == "unembedding.weight" || name == "head.weight") {
        head.parameters.push_back(p);
      } else if (endsWith(name, "attn.qkv.weight")) {
        muon.parameters.push_back({p, 3});  // q, k, v
      } else if (endsWith(name, "mlp.up.weight")) {
        muon.parameters.push_back({p, swiglu ? 2 : 1});  // gate, up
      } else if (endsWith(name, "attn.proj.weight") || endsWith(name, "mlp.down.weight")) {
        muon.parameters.push_back({p, 1});
      } else if (p.dim() == 1) {
        gains.parameters.push_back(p);
      } else {
        throw std::logic_error("RunOptimizer: no optimizer group for parameter " + name);
      }
    }
    std::vector<AdamWGroup> groups{embedding};
    if (!head.parameters.empty()) groups.push_back(head);
    if (!gains.parameters.empty()) groups.push_back(gains);
    return std::make_unique<ParamGroups>(std::move(muon), std::move(groups));
  }

  TrainConfig train_;
  MlpKind mlp_;
  BatchOrthogonalizer orthogonalizer_;
  std::unique_ptr<ParamGroups> groups_;
  std::vector<torch::Tensor> params_;  // every parameter, for gradient clipping
};

}  // namespace

std::unique_ptr<RunOptimizer> RunOptimizer::create(const TrainConfig& train,
                                                   torch::nn::Module& model, MlpKind mlp,
                                                   BatchOrthogonalizer orthogonalizer) {
  switch (train.optimizer) {
    case OptimizerKind::adamw:
      return std::make_unique<AdamWRunOptimizer>(train, model);
    case OptimizerKind::muon:
      return std::make_unique<MuonRunOptimizer>(train, model, mlp, std::move(orthogonalizer));
  }
  throw std::logic_error("RunOptimizer::create: an optimizer kind without an implementation");
}

std::unique_ptr<RunOptimizer> RunOptimizer::create(const TrainConfig& train, GPT& model,
                                                   BatchOrthogonalizer orthogonalizer) {
  return create(train, *model, model->config.mlp, std::move(orthogonalizer));
}

}  // namespace deepladder::trainers
