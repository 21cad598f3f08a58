// The C++ half of the Python reader test (safetensors_reader_test.py): trains a tiny run for a few
// steps in DIR, exports its newest checkpoint as DIR/model.safetensors the way `deepladder
// export-weights` does (trainers/weights_export.h), and writes DIR/reference.json with the
// worker's own values of every parameter (the checkpoint loaded into a fresh model), each float32
// as its 32-bit pattern in hex, for a reader that shares no code with this one.
//
//   safetensors_reference DIR
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tiny_run.h"
#include "trainers/checkpoint.h"
#include "trainers/weights_export.h"

int main(int argc, char** argv) {
  using namespace deepladder;
  using namespace deepladder::trainers;
  if (argc != 2) {
    std::fprintf(stderr, "usage: safetensors_reference DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "train.txt") << deepladder::trainers::testing::makeCorpus(3000, 1);
  std::ofstream(dir / "val.txt") << deepladder::trainers::testing::makeCorpus(400, 2);
  RunConfig config = deepladder::trainers::testing::tinyConfig(dir);
  config.model.mlp = MlpKind::swiglu;
  config.model.tie_embeddings = false;
  config.model.qk_norm = true;
  config.train.steps = 3;
  config.train.checkpoint_every = 3;
  TrainerOptions options;
  options.workdir = (dir / "run").string();
  runTraining(config, options, [](const protocol::Message&) {});

  WeightsExportOptions request;
  request.run_id = "1";
  request.workdir = options.workdir;
  request.out = (dir / "model.safetensors").string();
  exportWeights(config, request);

  GPT model(config.model);
  std::vector<std::string> skipped;
  if (!loadCheckpointWeights(options.workdir, configHash(config), model, std::nullopt, &skipped)) {
    std::fprintf(stderr, "no checkpoint\n");
    return 1;
  }
  nlohmann::json reference = nlohmann::json::object();
  for (const auto& item : model->named_parameters()) {
    const torch::Tensor t = item.value().detach().contiguous();
    nlohmann::json bits = nlohmann::json::array();
    const float* data = t.data_ptr<float>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      uint32_t word = 0;
      std::memcpy(&word, data + i, 4);
      char hex[9];
      std::snprintf(hex, sizeof hex, "%08x", word);
      bits.push_back(hex);
    }
    reference[item.key()] = {{"shape", t.sizes().vec()}, {"bits", bits}};
  }
  std::ofstream(dir / "reference.json") << reference.dump() << "\n";
  std::printf("%zu tensors\n", reference.size());
  return 0;
}
