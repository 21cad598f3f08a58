// Training-step throughput of a vanilla GPT on a GPU in bfloat16 (weights, activations and
// AdamW state all bf16; no autocast): tokens/s and model FLOP utilisation (MFU) against a stated
// peak. Used by scripts/gpu-check; the FLOPs per token come from core's FLOP model (6 N + causal
// attention), the same numbers the ladder planner uses.
//
//   gpu_train_step_bench [--d-model 1024] [--layers 12] [--seq-len 1024] [--batch 8]
//                        [--vocab 50304] [--steps 20] [--peak-tflops 989]
//   gpu_train_step_bench --run-config ARM CORPUS STEPS
//       prints the JSON run config of the same d_model 1024 shape (byte vocabulary, text corpus,
//       device cuda) with core's arm preset ARM applied, for deepladder-worker (scripts/gpu-check
//       trains vanilla and untied_grow through the real trainer this way).
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#if __has_include("core/architecture.h")
#include "core/architecture.h"
#define DEEPLADDER_HAVE_ARM_PRESETS 1
#endif
#include "core/flop_model.h"
#include "core/run_config.h"
#include "trainers/gpt.h"

namespace {

// The d_model 1024 shape every gpu-check measurement uses.
deepladder::ModelConfig checkShape() {
  deepladder::ModelConfig model;
  model.d_model = 1024;
  model.n_layer = 12;
  model.n_head = 16;
  model.seq_len = 1024;
  model.vocab_size = 50304;
  return model;
}

int printRunConfig(const std::string& arm, const std::string& corpus, int64_t steps) {
  deepladder::RunConfig config;
  config.name = "gpu-check-" + arm;
  config.model = checkShape();
  config.model.vocab_size = 256;  // byte-level text
#ifdef DEEPLADDER_HAVE_ARM_PRESETS
  try {
    deepladder::applyArmPreset(arm, config.model);
  } catch (const std::exception& e) {
    std::cerr << "gpu_train_step_bench: arm " << arm << ": " << e.what() << "\n";
    return 2;
  }
#else
  if (arm != "vanilla") {
    std::cerr << "gpu_train_step_bench: this tree has no arm presets (core/architecture.h)\n";
    return 2;
  }
#endif
  config.data.kind = deepladder::DataKind::text;
  config.data.train = corpus;
  config.data.val = corpus;
  config.train.batch_size = 8;
  config.train.steps = steps;
  config.train.warmup_steps = 5;
  config.train.eval_every = steps;
  config.train.eval_batches = 2;
  config.train.checkpoint_every = 0;
  config.train.device = "cuda";
  std::cout << deepladder::toJson(config).dump(2) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--run-config")
    return printRunConfig(argv[2], argv[3], std::atoll(argv[4]));
  deepladder::ModelConfig model = checkShape();
  int64_t batch = 8, steps = 20;
  double peak_tflops = 989.0;  // H200 SXM dense bf16
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const double v = std::atof(argv[i + 1]);
    if (flag == "--d-model")
      model.d_model = int64_t(v), model.n_head = int64_t(v) / 64;
    else if (flag == "--layers")
      model.n_layer = int64_t(v);
    else if (flag == "--seq-len")
      model.seq_len = int64_t(v);
    else if (flag == "--batch")
      batch = int64_t(v);
    else if (flag == "--vocab")
      model.vocab_size = int64_t(v);
    else if (flag == "--steps")
      steps = int64_t(v);
    else if (flag == "--peak-tflops")
      peak_tflops = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (!torch::cuda::is_available()) {
    std::printf("gpu_train_step_bench: no CUDA device, nothing measured\n");
    return 0;
  }
  torch::manual_seed(1);
  const torch::Device device(torch::kCUDA);
  deepladder::trainers::GPT gpt(model);
  gpt->initialiseWeights();
  gpt->to(device, torch::kBFloat16);
  torch::optim::AdamW optimizer(gpt->parameters(),
                                torch::optim::AdamWOptions(3e-4).weight_decay(0.1));
  const auto tokens = torch::randint(model.vocab_size, {batch, model.seq_len + 1},
                                     torch::TensorOptions().device(device).dtype(torch::kInt64));
  const auto idx = tokens.narrow(1, 0, model.seq_len), targets = tokens.narrow(1, 1, model.seq_len);
  double last_loss = 0;
  const auto step = [&] {
    optimizer.zero_grad();
    const auto loss = gpt->loss(idx, targets);
    loss.backward();
    optimizer.step();
    return loss;
  };
  for (int i = 0; i < 3; ++i) step();  // warm-up: allocator, cuBLAS heuristics
  torch::cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  torch::Tensor loss;
  for (int64_t i = 0; i < steps; ++i) loss = step();
  torch::cuda::synchronize();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  last_loss = loss.to(torch::kFloat32).item<double>();
  const double tokens_per_s = double(batch * model.seq_len * steps) / seconds;
  const double flops_per_token = deepladder::flopsPerToken(model);
  const double mfu = flops_per_token * tokens_per_s / (peak_tflops * 1e12);
  std::printf(
      "train step vanilla d_model=%lld layers=%lld seq=%lld batch=%lld vocab=%lld bf16: "
      "params %lld, %.1f ms/step, %.0f tokens/s, %.3g FLOP/token, MFU %.1f%% of %.0f "
      "TFLOP/s (loss %.3f)\n",
      (long long)model.d_model, (long long)model.n_layer, (long long)model.seq_len,
      (long long)batch, (long long)model.vocab_size, (long long)gpt->parameterCount(),
      1000 * seconds / steps, tokens_per_s, flops_per_token, 100 * mfu, peak_tflops, last_loss);
  return 0;
}
