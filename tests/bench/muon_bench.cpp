// Optimizer step time of the growth-ladder recipe, measured in one run against AdamW
// on the same parameters: the parameter shapes of a d_model 256, 6-layer GPT of the recipe
// (q, k, v, o 256x256; SwiGLU gate and up 768x256, down 256x768; embedding and untied head
// 50304x256), built directly as tensors with random gradients (no model, no backward pass).
//
//   muon_bench [--threads N] [--repeats R] [--device cpu|cuda] [--smoke]
// (--smoke: one timed step each, no real-GPT section; no goals: the figures are ratios)
// Rows printed (best of R timed steps after 2 warm-up steps; ratios against the baselines):
//   adamw_flat          trainers::AdamW (the flat-buffer AdamW the trainer uses) on everything
//   recipe_bf16         ParamGroups: Muon (bf16 Polar Express) on the 42 block matrices +
//                       AdamW on embedding and head: the recipe's step
//   recipe_fp32         the same with float32 Polar Express (not the recipe; CPU option)
//   blocks_adamw        per-tensor AdamW on the block matrices only
//   blocks_muon_bf16    Muon on the block matrices only (bf16), ratio against blocks_adamw
//   blocks_muon_fp32    Muon on the block matrices only (fp32), ratio against blocks_adamw
// The quick ladder's d7 block matrices (d_model 56, SwiGLU hidden 152, 7 layers), Muon with bf16
// Polar Express, its products two ways in the same run (on a CPU; elsewhere both are matmul):
//   quick_muon_bf16_aten  LibTorch's matmul (setFastCpuGemmEnabled(false)): LibTorch 1.13 runs
//                         bf16 products in a scalar loop on CPUs without AVX512-BF16
//   quick_muon_bf16       oneDNN's float32 sgemm, each product rounded once to bf16 (the
//                         trainer's path, cpu_gemm.h), ratio against quick_muon_bf16_aten
// Then the same comparison on a real model, in the same run: a recipe GPT of that shape
// (trainers/gpt.h: no gains, QK-norm, SwiGLU, padded vocabulary, untied head) and the trainer's
// own optimizers (trainers/run_optimizer.h, train.optimizer "adamw" and "muon"), gradients from
// a real backward pass on a batch of 4 x 256 tokens:
//   gpt_step_adamw      one full optimizer step (every parameter) of "adamw"
//   gpt_step_muon       one full optimizer step of "muon" (Muon bf16 + AdamW groups)
//   gpt_train_adamw     forward + backward + step with "adamw"
//   gpt_train_muon      forward + backward + step with "muon", ratio against gpt_train_adamw
#include <time.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/run_config.h"
#include "tests/bench/bench_goals.h"
#include "trainers/adamw.h"
#include "trainers/cpu_gemm.h"
#include "trainers/gpt.h"
#include "trainers/param_groups.h"
#include "trainers/run_optimizer.h"

namespace {

using namespace deepladder::trainers;
using deepladder::InitScheme;
using deepladder::MlpKind;
using deepladder::OptimizerKind;
using deepladder::Schedule;
using Clock = std::chrono::steady_clock;

constexpr int64_t kWidth = 256, kLayers = 6, kHidden = 768, kVocab = 50304;

struct Model {
  std::vector<torch::Tensor> blocks;
  torch::Tensor embedding, head;
  std::vector<torch::Tensor> all() const {
    std::vector<torch::Tensor> out = blocks;
    out.push_back(embedding);
    out.push_back(head);
    return out;
  }
};

// A leaf parameter of shape (r, c), initialized N(0, 0.02^2).
torch::Tensor randomParameter(int64_t r, int64_t c, const torch::TensorOptions& options) {
  return torch::randn({r, c}, options).mul_(0.02).requires_grad_(true);
}

// The block matrices of a recipe GPT: per layer q, k, v, o (width x width), SwiGLU gate and up
// (hidden x width) and down (width x hidden), each a leaf parameter.
std::vector<torch::Tensor> makeBlocks(int64_t width, int64_t hidden, int64_t layers,
                                      const torch::TensorOptions& options) {
  const auto parameter = [&](int64_t r, int64_t c) { return randomParameter(r, c, options); };
  std::vector<torch::Tensor> blocks;
  for (int64_t layer = 0; layer < layers; ++layer) {
    for (int i = 0; i < 4; ++i) blocks.push_back(parameter(width, width));  // q k v o
    blocks.push_back(parameter(hidden, width));                             // gate
    blocks.push_back(parameter(hidden, width));                             // up
    blocks.push_back(parameter(width, hidden));                             // down
  }
  return blocks;
}

Model makeModel(const torch::Device& device) {
  torch::manual_seed(0);
  const auto options = torch::TensorOptions().device(device).dtype(torch::kFloat32);
  Model m;
  m.blocks = makeBlocks(kWidth, kHidden, kLayers, options);
  m.embedding = randomParameter(kVocab, kWidth, options);
  m.head = randomParameter(kVocab, kWidth, options);
  return m;
}

// Gives every tensor a random gradient (copied into an existing one, so the flat AdamW's views
// stay in place).
void fillGradients(const std::vector<torch::Tensor>& tensors) {
  torch::NoGradGuard no_grad;
  for (const auto& t : tensors) {
    if (t.grad().defined())
      t.mutable_grad().normal_();
    else
      t.mutable_grad() = torch::randn_like(t);
  }
}

double processCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Timing {
  double wall = 0;  // seconds
  double cpu = 0;   // process CPU seconds (all threads)
};

// Best of `repeats` timed steps after 2 warm-up steps, wall and process CPU time separately: the
// machine is shared, and the fastest step is the one least disturbed by other work. With one
// thread on a CPU, CPU time is the work itself and hardly moves with the machine's load.
Timing bestTiming(const std::function<void(int64_t)>& step, const torch::Tensor& sync,
                  int repeats) {
  Timing best{1e30, 1e30};
  for (int64_t i = 0; i < repeats + 2; ++i) {
    const auto start = Clock::now();
    const double cpu_start = processCpuSeconds();
    step(i);
    (void)sync.sum().item<float>();  // waits for the device
    if (i < 2) continue;
    best.wall = std::min(best.wall, std::chrono::duration<double>(Clock::now() - start).count());
    best.cpu = std::min(best.cpu, processCpuSeconds() - cpu_start);
  }
  return best;
}

void printRow(const char* name, const Timing& t, const Timing& baseline, const char* against) {
  std::printf("%-20s wall %9.2f ms (%6.2fx)   cpu %9.2f ms (%6.2fx)   vs %s\n", name, 1e3 * t.wall,
              t.wall / baseline.wall, 1e3 * t.cpu, t.cpu / baseline.cpu, against);
}

ParamGroups recipeGroups(const Model& m, torch::Dtype dtype, bool with_adamw) {
  MuonGroup muon;
  muon.lr = 0.04;
  muon.options.weight_decay = 0.0707107;
  muon.options.orthogonalization_dtype = dtype;
  for (const auto& t : m.blocks) muon.parameters.push_back({t});
  std::vector<AdamWGroup> adamw;
  if (with_adamw) {
    adamw.push_back({{"embedding", 0.45255 * 0.04}, {m.embedding}});
    adamw.push_back({{"head", 0.11314 * 0.04}, {m.head}});
  }
  return ParamGroups(std::move(muon), std::move(adamw));
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals goals(deepladder::bench::takeSmokeFlag(argc, argv));
  int threads = 0, repeats = goals.smoke() ? 1 : 5;
  std::string device_name = "cpu";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (flag == "--repeats")
      repeats = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--device")
      device_name = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: muon_bench [--threads N] [--repeats R] [--device cpu|cuda]\n");
      return 2;
    }
  }
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  torch::set_num_threads(threads);
  const torch::Device device(device_name);
  std::printf(
      "muon_bench: d_model %lld, %lld layers, H %lld, V %lld; device %s, %d threads, "
      "best of %d steps\n",
      static_cast<long long>(kWidth), static_cast<long long>(kLayers),
      static_cast<long long>(kHidden), static_cast<long long>(kVocab), device_name.c_str(), threads,
      repeats);

  const std::vector<torch::Dtype> dtypes{torch::kBFloat16, torch::kFloat32};
  // Baseline: the flat-buffer AdamW on every parameter.
  Timing adamw_flat;
  {
    Model m = makeModel(device);
    AdamW adamw(m.all(), AdamWOptions{0.8, 0.95, 1e-10, 0.0});
    fillGradients(m.all());
    adamw_flat = bestTiming([&](int64_t) { adamw.step(1e-3); }, m.head, repeats);
  }
  printRow("adamw_flat", adamw_flat, adamw_flat, "adamw_flat");
  for (const auto dtype : dtypes) {
    Model m = makeModel(device);
    ParamGroups groups = recipeGroups(m, dtype, /*with_adamw=*/true);
    fillGradients(m.all());
    const Timing t = bestTiming([&](int64_t s) { groups.step(s, 1.0); }, m.head, repeats);
    printRow(dtype == torch::kBFloat16 ? "recipe_bf16" : "recipe_fp32", t, adamw_flat,
             "adamw_flat");
  }

  // Block matrices only: per-tensor AdamW (ParamGroups' own) against Muon.
  Timing blocks_adamw;
  {
    Model m = makeModel(device);
    ParamGroups groups(MuonGroup{}, {AdamWGroup{{"blocks", 1e-3}, m.blocks}});
    fillGradients(m.blocks);
    blocks_adamw = bestTiming([&](int64_t s) { groups.step(s, 1.0); }, m.head, repeats);
  }
  printRow("blocks_adamw", blocks_adamw, blocks_adamw, "blocks_adamw");
  for (const auto dtype : dtypes) {
    Model m = makeModel(device);
    ParamGroups groups = recipeGroups(m, dtype, /*with_adamw=*/false);
    fillGradients(m.blocks);
    const Timing t = bestTiming([&](int64_t s) { groups.step(s, 1.0); }, m.head, repeats);
    printRow(dtype == torch::kBFloat16 ? "blocks_muon_bf16" : "blocks_muon_fp32", t, blocks_adamw,
             "blocks_adamw");
  }

  // The quick ladder's d7 shapes: Polar Express's bf16 products through LibTorch, then oneDNN.
  {
    torch::manual_seed(0);
    Model quick;  // blocks only
    quick.blocks = makeBlocks(56, 152, 7, torch::TensorOptions().device(device));
    Timing muon[2];
    for (const bool fast : {false, true}) {
      ParamGroups groups = recipeGroups(quick, torch::kBFloat16, /*with_adamw=*/false);
      fillGradients(quick.blocks);
      setFastCpuGemmEnabled(fast);
      muon[fast] = bestTiming([&](int64_t s) { groups.step(s, 1.0); }, quick.blocks[0], repeats);
      setFastCpuGemmEnabled(true);
    }
    printRow("quick_muon_bf16_aten", muon[0], muon[0], "quick_muon_bf16_aten");
    printRow("quick_muon_bf16", muon[1], muon[0], "quick_muon_bf16_aten");
  }

  if (goals.smoke()) return goals.exitCode();
  // A real recipe GPT and the trainer's optimizers, on the same model and batch.
  deepladder::ModelConfig model_config;
  model_config.vocab_size = 50257;
  model_config.vocab_padded = kVocab;
  model_config.d_model = kWidth;
  model_config.n_layer = kLayers;
  model_config.n_head = kWidth / 128;
  model_config.seq_len = 256;
  model_config.mlp = MlpKind::swiglu;
  model_config.mlp_hidden = kHidden;
  model_config.tie_embeddings = false;
  model_config.norm_gain = false;
  model_config.qk_norm = true;
  model_config.embed_norm = true;
  model_config.init = InitScheme::recipe;
  deepladder::TrainConfig train_config;
  train_config.lr = 0.04;
  train_config.embed_lr = 0.45255 * 0.04;
  train_config.head_lr = 0.11314 * 0.04;
  train_config.weight_decay = 0.0707107;
  train_config.cautious_weight_decay = true;
  train_config.schedule = Schedule::wsd;
  train_config.steps = 1000;
  train_config.warmup_steps = 0;
  train_config.decay_fraction = 0.6;
  const auto idx = torch::randint(0, 50257, {4, 257}, torch::kInt64).to(device);
  const auto inputs = idx.narrow(1, 0, 256), targets = idx.narrow(1, 1, 256);
  Timing gpt_step[2], gpt_train[2];
  const OptimizerKind kinds[2] = {OptimizerKind::adamw, OptimizerKind::muon};
  for (int k = 0; k < 2; ++k) {
    torch::manual_seed(0);
    GPT model(model_config);
    model->to(device);
    train_config.optimizer = kinds[k];
    auto optimizer = RunOptimizer::create(train_config, model);
    const auto backward = [&]() { model->loss(inputs, targets).backward(); };
    backward();  // gradients for the optimizer-only timing (kept: step() does not clear them)
    gpt_step[k] = bestTiming([&](int64_t s) { optimizer->step(s, 1.0); },
                             model->unembedding->weight, repeats);
    gpt_train[k] = bestTiming(
        [&](int64_t s) {
          optimizer->zeroGrad();
          backward();
          optimizer->step(s, 1.0);
        },
        model->unembedding->weight, repeats);
  }
  printRow("gpt_step_adamw", gpt_step[0], gpt_step[0], "gpt_step_adamw");
  printRow("gpt_step_muon", gpt_step[1], gpt_step[0], "gpt_step_adamw");
  printRow("gpt_train_adamw", gpt_train[0], gpt_train[0], "gpt_train_adamw");
  printRow("gpt_train_muon", gpt_train[1], gpt_train[0], "gpt_train_adamw");
  return goals.exitCode();
}
