// The paper's numerics, measured: for one arm of each kind (vanilla, operator_1, untied_grow) at
// tiny recipe shapes, 50 steps with fp32 orthogonalization (train.muon_orthogonalization), run
// twice from the same seed (the final weights must be identical), then with each numerics item
// set back to what deepladder computed before alone (norm_eps 1e-6, exact Muon scalars, fp32
// rotary tables, row-norm floor 1e-12): the training loss at steps 1, 10 and 50 and its change.
// Then the export of the largest growth-fineweb rung's shape (d20 vanilla, initialized, not
// trained): time and file size. Prints figures; one goal (bench_goals.h, exit 1 on a miss, judged
// in smoke mode too): the two runs of each arm end with identical weights.
//
//   paper_numerics_bench [--skip-export | --export-only] [--smoke]
// (--smoke: the vanilla arm alone, no export)
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/architecture.h"
#include "core/ladder/ladder_spec.h"
#include "tests/bench/bench_goals.h"
#include "trainers/checkpoint.h"
#include "trainers/model_weights.h"
#include "trainers/safetensors.h"
#include "trainers/trainer.h"

namespace {

using namespace deepladder;
using namespace deepladder::trainers;
namespace fs = std::filesystem;

std::string corpus(int sentences, unsigned seed) {
  static const char* words[] = {"the", "cat", "sat", "on",  "a",   "mat",  "and", "dog",
                                "ran", "to",  "see", "old", "red", "barn", "in",  "rain"};
  std::string text;
  unsigned state = seed;
  for (int s = 0; s < sentences; ++s) {
    for (int w = 0; w < 4 + s % 5; ++w) {
      state = state * 1103515245u + 12345u;
      text += words[(state >> 16) % 16];
      text += ' ';
    }
    text += s % 8 == 7 ? ".\n" : ". ";
  }
  return text;
}

RunConfig armConfig(const fs::path& dir, const std::string& arm) {
  RunConfig c;
  c.name = arm;
  ModelConfig& m = c.model;
  m.vocab_size = 256;
  m.vocab_padded = 320;
  m.d_model = 32;
  m.n_head = 2;
  m.seq_len = 32;
  m.n_layer = 3;
  applyArmPreset(arm, m);
  m.mlp = MlpKind::swiglu;
  m.tie_embeddings = false;
  m.norm_gain = false;
  m.qk_norm = true;
  m.embed_norm = true;
  m.residual_scale = 0.5;
  m.init = InitScheme::recipe;
  m.init_embed_std = 0.1;
  m.init_uniform = 0.35;
  m.grow_fraction = 0.5;
  m.rewarm_steps = 5;
  c.data.kind = DataKind::text;
  c.data.train = (dir / "train.txt").string();
  c.data.val = (dir / "val.txt").string();
  TrainConfig& t = c.train;
  t.optimizer = OptimizerKind::muon;
  t.muon_orthogonalization = TableDtype::fp32;
  t.lr = 0.02;
  t.embed_lr = 0.02;
  t.head_lr = 0.004;
  t.weight_decay = 0.05;
  t.cautious_weight_decay = true;
  t.beta1 = 0.8;
  t.beta2 = 0.95;
  t.eps = 1e-10;
  t.schedule = Schedule::wsd;
  t.warmup_steps = 5;
  t.decay_fraction = 0.5;
  t.min_lr_ratio = 0;
  t.grad_clip = 0;
  t.batch_size = 8;
  t.steps = 50;
  t.eval_every = 50;
  t.eval_batches = 1;
  t.checkpoint_every = 50;
  t.threads = 1;
  return c;
}

struct Result {
  std::map<int64_t, double> loss;
  std::vector<torch::Tensor> weights;
};

Result train(const RunConfig& config, const fs::path& workdir) {
  fs::remove_all(workdir);
  TrainerOptions options;
  options.workdir = workdir.string();
  Result result;
  runTraining(config, options, [&](const protocol::Message& message) {
    if (const auto* metric = std::get_if<protocol::Metric>(&message))
      for (const auto& [key, value] : metric->values)
        if (key == "train/loss") result.loss[metric->step] = value;
  });
  GPT model(config.model);
  std::vector<std::string> skipped;
  loadCheckpointWeights(options.workdir, configHash(config), model, std::nullopt, &skipped);
  for (const auto& p : model->parameters()) result.weights.push_back(p.detach().clone());
  return result;
}

bool sameWeights(const Result& a, const Result& b) {
  if (a.weights.size() != b.weights.size()) return false;
  for (size_t i = 0; i < a.weights.size(); ++i)
    if (!torch::equal(a.weights[i], b.weights[i])) return false;
  return true;
}

void numericsFigures(const fs::path& dir, deepladder::bench::Goals& goals) {
  struct Item {
    const char* name;
    void (*set_back)(RunConfig&);
  };
  const Item items[] = {
      {"norm_eps 1e-6", [](RunConfig& c) { c.model.norm_eps = 1e-6; }},
      {"exact Muon scalars", [](RunConfig& c) { c.train.muon_exact_scalars = true; }},
      {"fp32 rotary tables", [](RunConfig& c) { c.model.rotary_tables = TableDtype::fp32; }},
      {"row-norm floor 1e-12", [](RunConfig& c) { c.train.muon_row_norm_floor = 1e-12; }},
  };
  std::vector<const char*> arms = {"vanilla", "operator_1", "untied_grow"};
  if (goals.smoke()) arms.resize(1);
  for (const char* arm : arms) {
    const RunConfig paper = armConfig(dir, arm);
    const Result first = train(paper, dir / "a");
    const Result second = train(paper, dir / "b");
    std::printf(
        "%s (fp32 orthogonalization, 50 steps): weights identical across two runs: %s; "
        "loss at 1/10/50: %.9g %.9g %.9g\n",
        arm, sameWeights(first, second) ? "yes" : "NO", first.loss.at(1), first.loss.at(10),
        first.loss.at(50));
    goals.holds(std::string(arm) + ": two runs from one seed end with identical weights",
                sameWeights(first, second));
    for (const Item& item : items) {
      RunConfig before = paper;
      item.set_back(before);
      const Result other = train(before, dir / "c");
      std::printf("  %-22s loss change (paper - before) at 1/10/50: %+.3e %+.3e %+.3e\n", item.name,
                  first.loss.at(1) - other.loss.at(1), first.loss.at(10) - other.loss.at(10),
                  first.loss.at(50) - other.loss.at(50));
    }
  }
}

void exportFigures(const fs::path& dir) {
  // The largest growth-fineweb rung: vanilla d20 (width 2560, 20 heads, SwiGLU 6912, V 50304).
  const ladder::LadderSpec spec = ladder::loadLadder(std::string(DEEPLADDER_SOURCE_DIR) +
                                                     "/resources/ladders/growth-fineweb.toml");
  const ladder::PlannedRun* largest = nullptr;
  for (const auto& run : spec.runs)
    if (!largest || run.params > largest->params) largest = &run;
  const fs::path out = dir / "largest.safetensors";
  double init_s = 0, write_s = 0;
  int64_t parameters = 0;
  {
    const auto start_init = std::chrono::steady_clock::now();
    GPT model(largest->config.model);
    init_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_init).count();
    parameters = model->parameterCount();
    const auto start = std::chrono::steady_clock::now();
    safetensors::write(out.string(), modelWeights(model));
    write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }  // the model is freed before the file is read back
  const auto start_read = std::chrono::steady_clock::now();
  const auto file = safetensors::read(out.string());
  const double read_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_read).count();
  std::printf(
      "export of %s (%lld parameters): %.2f s to write, %.2f s to read back, %.3f GB "
      "(init %.1f s, %zu tensors)\n",
      largest->name.c_str(), static_cast<long long>(parameters), write_s, read_s,
      static_cast<double>(fs::file_size(out)) / 1e9, init_s, file.tensors.size());
  fs::remove(out);
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals goals(deepladder::bench::takeSmokeFlag(argc, argv));
  const bool skip_export =
      goals.smoke() || (argc > 1 && std::strcmp(argv[1], "--skip-export") == 0);
  const bool skip_training = argc > 1 && std::strcmp(argv[1], "--export-only") == 0;
  torch::set_num_threads(1);
  const fs::path dir =
      fs::temp_directory_path() / ("deepladder-numerics-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "train.txt") << corpus(3000, 1);
  std::ofstream(dir / "val.txt") << corpus(400, 2);
  if (!skip_training) numericsFigures(dir, goals);
  if (!skip_export) exportFigures(dir);
  fs::remove_all(dir);
  return goals.exitCode();
}
