// Seed inputs (see fuzz_seeds.h).
#include "tests/fuzz/fuzz_seeds.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/protocol.h"
#include "tests/fuzz/fuzz_inputs.h"
#include "trainers/checkpoint.h"
#include "trainers/data/token_data.h"
#include "trainers/gpt.h"
#include "trainers/run_optimizer.h"

namespace deepladder::fuzz {

namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(std::string(DEEPLADDER_SOURCE_DIR) + "/" + dir))
    if (entry.path().extension() == ".toml") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());  // directory order is not stable
  std::vector<std::string> out;
  for (const auto& path : paths) out.push_back(readFile(path));
  return out;
}

std::vector<std::string> csvSeeds() {
  std::string frontier = "arm,compute_flops,val_loss,params,tokens,depth\n# a ladder's results\n";
  std::string sizes = "params,tokens,loss,compute_flops\n";
  const char* arms[] = {"vanilla", "untied_grow"};
  for (int a = 0; a < 2; ++a)
    for (int rung = 0; rung < 4; ++rung) {
      const double params = 1e5 * (rung + 1), tokens = 20 * params, c = 6 * params * tokens;
      const double loss = 2.0 + 3.0 / (1 + rung) - 0.05 * a;
      std::ostringstream row;
      row << arms[a] << "," << c << "," << loss << "," << params << "," << tokens << ","
          << (rung + 2) << "\n";
      frontier += row.str();
      std::ostringstream size_row;
      size_row << params << "," << tokens << "," << loss << "," << c << "\n";
      sizes += size_row.str();
    }
  return {frontier, sizes};
}

std::vector<std::string> shardSeeds() {
  std::vector<uint16_t> tokens;
  for (int i = 0; i < 300; ++i) tokens.push_back(static_cast<uint16_t>((i * 7919) % 50257));
  const std::string path = fuzzScratchDirectory() + "/seed_shard.bin";
  data::writeShard(path, tokens);
  return {readFile(path)};
}

std::vector<std::string> checkpointSeeds() {
  ModelConfig model_config;  // the same model fuzzCheckpoint loads into
  model_config.vocab_size = 256;
  model_config.d_model = 16;
  model_config.n_layer = 1;
  model_config.n_head = 2;
  model_config.seq_len = 8;
  trainers::GPT model(model_config);
  auto optimizer = trainers::RunOptimizer::create(TrainConfig{}, model);
  trainers::TrainingState state;
  state.step = 7;
  state.tokens = 7 * 64;
  state.flops = 1e9;
  state.sampler_position = 3;
  state.config_hash = "0123456789abcdef";
  const std::string dir = fuzzScratchDirectory() + "/seed_checkpoint";
  fs::create_directories(dir);
  const trainers::CheckpointRecord record =
      trainers::saveCheckpoint(dir, *model, *optimizer, state);
  return {readFile(record.path)};
}

std::vector<std::string> protocolSeeds() {
  using namespace protocol;
  Metric metric{12, 768, 4.5e9, 1.25, {{"train/loss", 3.25}, {"lr", 1e-3}, {"val/loss", NAN}}};
  const std::vector<Message> messages = {
      Hello{"7", "0123456789abcdef", "cpu", -1, 123456, 7.5e5},
      metric,
      Eval{50, "squaring/depth", 9, 4, 250, 288},
      Lens{40, {0.5, 0.25, INFINITY}},
      Checkpoint{40, "/work/run/ckpt-40.pt", std::string(64, 'a')},
      Event{30, "grown", "core passes 2 -> 4"},
      Done{RunStatus::kFinished, 3.1, 100, 6400, 1e12, 12.5, ""},
      Done{RunStatus::kDiverged, NAN, 10, 640, 1e11, 1.5, "loss is NaN"},
      Error{"data.train: no such file"}};
  std::vector<std::string> out;
  for (const auto& m : messages) out.push_back(encode(m));
  return out;
}

}  // namespace

std::vector<std::string> seedsFor(const std::string& parser) {
  if (parser == "ladder_toml") return filesIn("resources/ladders");
  if (parser == "run_toml") return filesIn("resources/runs");
  if (parser == "results_csv") return csvSeeds();
  if (parser == "shard_header") return shardSeeds();
  if (parser == "checkpoint") return checkpointSeeds();
  if (parser == "protocol_line") return protocolSeeds();
  return {};
}

}  // namespace deepladder::fuzz
