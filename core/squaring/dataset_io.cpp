// JSON-lines files of the squaring task (see dataset_io.h).
#include "core/squaring/dataset_io.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/errors.h"
#include "core/squaring/reference_io.h"

namespace deepladder::squaring {

namespace {

void appendNumber(std::string& out, uint64_t v) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

void appendTokenArray(std::string& out, const int32_t* tokens, int count) {
  out += '[';
  for (int i = 0; i < count; ++i) {
    if (i) out += ',';
    appendNumber(out, static_cast<uint64_t>(tokens[i]));
  }
  out += ']';
}

uint64_t requireUnsigned(const nlohmann::json& line, const char* key, const std::string& where) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_number_integer() || it->get<int64_t>() < 0)
    throw UserError(where + ": " + key + ": missing or not a non-negative integer. Regenerate " +
                    "the file with `deepladder squaring generate`");
  return it->get<uint64_t>();
}

}  // namespace

Compat parseCompat(const std::string& name) {
  if (name == "native") return Compat::kNative;
  if (name == "reference") return Compat::kReference;
  throw UserError("--compat \"" + name +
                  "\" is unknown. Use \"native\" (deepladder's files) or \"reference\" (the "
                  "benchmark's files, byte for byte)");
}

const char* compatName(Compat compat) {
  return compat == Compat::kNative ? "native" : "reference";
}

void writeTextAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(tmp + ": cannot open for writing (check the directory)");
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) throw std::runtime_error(tmp + ": write failed (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error(path + ": cannot rename from " + tmp + ": " + ec.message());
}

std::string exampleJsonLine(const Example& e) {
  std::string out;
  out.reserve(160);
  int32_t tokens[64];
  out += "{\"n\":";
  appendNumber(out, e.n);
  out += ",\"x\":";
  appendNumber(out, e.x);
  out += ",\"t\":";
  appendNumber(out, static_cast<uint64_t>(e.t));
  out += ",\"answer\":";
  appendNumber(out, e.z);
  out += ",\"tokens\":";
  appendTokenArray(out, tokens, writePromptTokens(e.n, e.x, e.t, tokens));
  out += ",\"answer_tokens\":";
  appendTokenArray(out, tokens, writeDigitTokens(e.z, tokens));
  out += '}';
  return out;
}

void writeExamplesJsonl(const std::string& path, const std::vector<Example>& examples) {
  std::string text;
  text.reserve(examples.size() * 120);
  for (const auto& e : examples) {
    text += exampleJsonLine(e);
    text += '\n';
  }
  writeTextAtomically(path, text);
}

std::vector<Example> readExamplesJsonl(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw UserError(path + ": cannot open. Check the path or run `deepladder squaring " +
                    "generate --tier TIER --out DIR`");
  std::vector<Example> out;
  std::string text;
  long line_number = 0;
  while (std::getline(in, text)) {
    ++line_number;
    if (text.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_number);
    nlohmann::json line = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (line.is_discarded() || !line.is_object())
      throw UserError(where + ": not a JSON object. Each line must be one example");
    if (line.contains("modulus")) {
      out.push_back(exampleFromReferenceJson(line, where));
      continue;
    }
    Example e;
    e.n = requireUnsigned(line, "n", where);
    e.x = requireUnsigned(line, "x", where);
    e.t = static_cast<int64_t>(requireUnsigned(line, "t", where));
    e.z = requireUnsigned(line, "answer", where);
    if (e.x < 1 || e.x >= e.n) throw UserError(where + ": x: must lie in [1, n)");
    if (e.z >= e.n) throw UserError(where + ": answer: must be below n");
    if (line.contains("tokens") && line["tokens"] != promptTokens(e.n, e.x, e.t))
      throw UserError(where + ": tokens: not the prompt of (n, x, t)");
    out.push_back(e);
  }
  return out;
}

std::vector<WrittenFile> writeTierDataset(const std::string& directory, const TierPreset& tier,
                                          const TierDataset& data) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw UserError(directory + ": cannot create the output directory: " + ec.message());
  const std::vector<std::pair<std::string, const std::vector<Example>*>> files = {
      {"train.jsonl", &data.train},
      {"test.jsonl", &data.test},
      {"ood_t.jsonl", &data.ood_t},
      {"depth_seen.jsonl", &data.depth_seen},
      {"depth_ood_n.jsonl", &data.depth_ood_n}};
  std::vector<WrittenFile> written;
  nlohmann::json manifest;
  manifest["task"] = "squaring";
  manifest["tier"] = tier.name;
  manifest["difficulty"] = tier.difficulty;
  manifest["budget"] = tier.budget;
  manifest["seed"] = data.seed;
  if (tier.fixedModulus()) {
    manifest["fixed_p"] = tier.fixed_p;
    manifest["fixed_q"] = tier.fixed_q;
    manifest["fixed_n"] = tier.fixedN();
  }
  manifest["modulus_bits"] = tier.modulus_bits;
  manifest["train_t"] = tier.train_t;
  manifest["ood_t"] = tier.ood_t;
  manifest["ood_modulus_bits"] = tier.ood_modulus_bits;
  manifest["depth_ladder"] = tier.depth_ladder;
  manifest["train_fraction"] = tier.train_fraction;
  manifest["test_fraction"] = tier.test_fraction;
  manifest["examples_per_setting"] = tier.examples_per_setting;
  manifest["ood_examples_per_setting"] = tier.ood_examples_per_setting;
  manifest["depth_cohort"] =
      tier.difficulty == "control" ? nlohmann::json("every unit x at every rung")
      : tier.depth_exhaustive_x    ? nlohmann::json("every x unused by train, test and OOD")
                                   : nlohmann::json(tier.depth_examples_per_setting);
  manifest["ood_n_examples_per_setting"] = tier.ood_n_examples_per_setting;
  manifest["records"] = tier.difficulty == "control"
                            ? "deepladder's positive control (no benchmark counterpart)"
                            : "the public benchmark's for this tier and seed (--compat reference)";
  manifest["vocab_size"] = kVocabSize;
  manifest["prompt_length_bound"] = promptLengthBound(tier.maxBits(), tier.maxT());
  manifest["answer_length_bound"] = answerLengthBound(tier.maxBits());
  for (const auto& [name, examples] : files) {
    const std::string path = (std::filesystem::path(directory) / name).string();
    writeExamplesJsonl(path, *examples);
    written.push_back({name, static_cast<int64_t>(examples->size())});
    manifest["files"][name] = examples->size();
  }
  writeTextAtomically((std::filesystem::path(directory) / "manifest.json").string(),
                      manifest.dump(2) + "\n");
  written.push_back({"manifest.json", 1});
  return written;
}

namespace {

nlohmann::json readJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot open");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    throw UserError(path +
                    ": not a JSON object. Regenerate the directory with `deepladder "
                    "squaring generate`");
  return j;
}

// The preset whose moduli and T the benchmark's generator config names ("" when none).
std::string tierOfGeneratorConfig(const nlohmann::json& g) {
  for (const TierPreset& tier : tierPresets()) {
    const bool fixed = g.value("fixed_modulus", nlohmann::json()).is_number_integer();
    if (fixed != tier.fixedModulus()) continue;
    if (fixed ? g["fixed_modulus"].get<uint64_t>() != tier.fixedN()
              : g.value("modulus_bits", nlohmann::json()) != nlohmann::json(tier.modulus_bits))
      continue;
    const auto t = g.value("fixed_time_steps", nlohmann::json());
    const nlohmann::json train_t = t.is_number_integer() ? nlohmann::json::array({t})
                                                         : g.value("time_steps", nlohmann::json());
    if (train_t == nlohmann::json(tier.train_t) &&
        g.value("ood_time_steps", nlohmann::json()) == nlohmann::json::array({tier.ood_t}))
      return tier.name;
  }
  return "";
}

// Depth files "<prefix><T>.jsonl" of a directory, ascending T.
std::vector<std::string> depthFiles(const std::filesystem::path& dir, const std::string& prefix) {
  std::vector<std::pair<int64_t, std::string>> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || entry.path().extension() != ".jsonl") continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 6);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit)) continue;
    found.push_back({std::stoll(digits), entry.path().string()});
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(f.second);
  return out;
}

void appendFile(std::vector<Example>& to, const std::string& path) {
  const auto examples = readExamplesJsonl(path);
  to.insert(to.end(), examples.begin(), examples.end());
}

}  // namespace

TierDataset readTierDirectory(const std::string& directory) {
  const std::filesystem::path dir(directory);
  TierDataset data;
  if (std::filesystem::exists(dir / "manifest.json")) {
    const auto manifest = readJsonFile((dir / "manifest.json").string());
    data.tier = manifest.value("tier", "");
    data.seed = manifest.value("seed", uint64_t{0});
    data.train = readExamplesJsonl((dir / "train.jsonl").string());
    data.test = readExamplesJsonl((dir / "test.jsonl").string());
    data.ood_t = readExamplesJsonl((dir / "ood_t.jsonl").string());
    data.depth_seen = readExamplesJsonl((dir / "depth_seen.jsonl").string());
    data.depth_ood_n = readExamplesJsonl((dir / "depth_ood_n.jsonl").string());
    return data;
  }
  if (!std::filesystem::exists(dir / "dataset_config.json"))
    throw UserError(directory +
                    ": neither manifest.json (native layout) nor dataset_config.json (the "
                    "benchmark's layout). Point at a directory written by `deepladder squaring "
                    "generate` or by the benchmark's generator");
  const auto config = readJsonFile((dir / "dataset_config.json").string());
  const auto generator = config.value("generator_config", nlohmann::json::object());
  data.tier = tierOfGeneratorConfig(generator);
  data.seed = generator.value("seed", uint64_t{0});
  data.train = readExamplesJsonl((dir / "train.jsonl").string());
  data.test = readExamplesJsonl((dir / "test.jsonl").string());
  if (std::filesystem::exists(dir / "ood.jsonl"))
    data.ood_t = readExamplesJsonl((dir / "ood.jsonl").string());
  for (const auto& path : depthFiles(dir, "depth_t_")) appendFile(data.depth_seen, path);
  for (const auto& path : depthFiles(dir, "depth_ood_n_t_")) appendFile(data.depth_ood_n, path);
  return data;
}

}  // namespace deepladder::squaring
