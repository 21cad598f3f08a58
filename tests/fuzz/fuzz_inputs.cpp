// The fuzz entries (see fuzz_inputs.h).
#include "tests/fuzz/fuzz_inputs.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/protocol.h"
#include "core/run_config.h"
#include "core/sha256.h"
#include "core/toml_guard.h"
#include "fitting/results_csv.h"
#include "trainers/checkpoint.h"
#include "trainers/data/token_data.h"
#include "trainers/gpt.h"
#include "trainers/run_optimizer.h"

namespace deepladder::fuzz {

namespace fs = std::filesystem;

namespace {

std::string text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("fuzz: cannot write " + path);
}

}  // namespace

const std::string& fuzzScratchDirectory() {
  static const std::string dir = [] {
    const fs::path path =
        fs::temp_directory_path() / ("deepladder-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(path);
    return path.string();
  }();
  return dir;
}

void fuzzLadderToml(const uint8_t* data, size_t size) {
  (void)ladder::parseLadder(text(data, size), "fuzz.toml");
}

void fuzzRunToml(const uint8_t* data, size_t size) {
  const std::string toml = text(data, size);
  checkTomlGuard(toml, "fuzz.toml");  // as `train` and the worker read run files
  const RunConfig config = parseRunConfigToml(toml, "fuzz.toml");
  // What the CLI hands the worker must read back as the same config.
  const RunConfig again = runConfigFromJson(toJson(config));
  if (configHash(again) != configHash(config))
    throw std::logic_error("fuzz: run config changed on its way through JSON");
}

void fuzzResultsCsv(const uint8_t* data, size_t size) {
  const std::string csv = text(data, size);
  try {  // both readers see every input: the frontier form, then the Chinchilla form
    (void)fitting::parseResultsCsv(csv, "fuzz.csv");
  } catch (const UserError&) {
  }
  (void)fitting::parseSizesCsv(csv, "fuzz.csv");
}

void fuzzShardHeader(const uint8_t* data, size_t size) {
  const std::string path = fuzzScratchDirectory() + "/fuzz_shard.bin";
  writeFile(path, text(data, size));
  DataConfig config;
  config.kind = DataKind::shards;
  config.train = path;
  config.val = path;
  config.val_tokens = 4096;
  const auto tokens = data::openTokenData(config, data::Split::kTrain, /*seq_len=*/8);
  const int64_t count = std::min<int64_t>(tokens->size(), 64);
  std::vector<int32_t> out(static_cast<size_t>(count));
  tokens->copy(0, count, out.data());
  (void)tokens->maxTokenId();
  (void)data::validationBatches(config, *tokens, /*eval_batches=*/1, /*rows=*/2, /*seq_len=*/8);
}

void fuzzCheckpoint(const uint8_t* data, size_t size) {
  // The loader trusts nothing its checksum does not cover, and the checksum is easy to forge:
  // write the bytes with a matching sidecar so that they reach the archive reader.
  const std::string dir = fuzzScratchDirectory() + "/checkpoint";
  fs::create_directories(dir);
  const std::string bytes = text(data, size);
  writeFile(dir + "/ckpt-1.pt", bytes);
  writeFile(dir + "/ckpt-1.sha256", sha256Hex(bytes.data(), bytes.size()) + "  ckpt-1.pt\n");
  ModelConfig model_config;
  model_config.vocab_size = 256;
  model_config.d_model = 16;
  model_config.n_layer = 1;
  model_config.n_head = 2;
  model_config.seq_len = 8;
  TrainConfig train;
  trainers::GPT model(model_config);
  auto optimizer = trainers::RunOptimizer::create(train, model);
  std::vector<std::string> skipped;
  (void)trainers::loadNewestValidCheckpoint(dir, "", model, *optimizer, &skipped);
}

void fuzzProtocolLine(const uint8_t* data, size_t size) {
  const auto message = protocol::decode(text(data, size));
  if (!message) return;
  const std::string line = protocol::encode(*message);
  if (!protocol::decode(line))
    throw std::logic_error("fuzz: a decoded protocol message does not decode again");
}

const std::vector<FuzzParser>& fuzzParsers() {
  static const std::vector<FuzzParser> parsers = {
      {"ladder_toml", fuzzLadderToml}, {"run_toml", fuzzRunToml},
      {"results_csv", fuzzResultsCsv}, {"shard_header", fuzzShardHeader},
      {"checkpoint", fuzzCheckpoint},  {"protocol_line", fuzzProtocolLine}};
  return parsers;
}

}  // namespace deepladder::fuzz
