// Reading a TensorBoard log directory into runs (see tb_logdir.h).
#include "core/import/tb_logdir.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/errors.h"
#include "core/safe_text.h"
#include "core/tensorboard/protobuf_wire.h"
#include "core/tensorboard/tb_event.h"
#include "core/tensorboard/tb_run_writer.h"
#include "core/tensorboard/tfrecord.h"
#include "core/toml_reader.h"

namespace deepladder::imports {
namespace fs = std::filesystem;
namespace {

constexpr const char* kEventFilePrefix = "events.out.tfevents.";

std::string readBinaryFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path.string() + ": cannot be read. Check its permissions");
  std::string bytes;
  in.seekg(0, std::ios::end);
  bytes.resize(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw UserError(path.string() + ": read failed. Check the disk and the file");
  return bytes;
}

void readEventFile(const fs::path& path, const ImportSettings& settings, ImportedRun& run,
                   nlohmann::json& hparams) {
  const std::string bytes = readBinaryFile(path);
  tensorboard::TfRecordReader records(bytes, path.string());
  tensorboard::EventDecoder decoder;
  tensorboard::TbEvent event;
  std::string_view data;
  size_t offset = 0;
  std::map<std::string, std::string> keys;  // tag -> metric key, looked up once per tag
  while (records.next(data, offset)) {
    try {
      decoder.decode(data, event);
    } catch (const tensorboard::WireFormatError& e) {
      throw UserError(path.string() + ": byte " +
                      std::to_string(offset + tensorboard::kTfRecordHeaderBytes + e.offset()) +
                      " (in the record at byte " + std::to_string(offset) +
                      "): not a valid Event proto: " + e.what() +
                      ". The record's CRC matches, so it was written this way: is this a "
                      "TensorBoard event file?");
    }
    if (event.hparams) mergeOptions(hparams, *event.hparams);
    for (auto& scalar : event.scalars) {
      auto known = keys.find(scalar.tag);
      if (known == keys.end())
        known = keys.emplace(scalar.tag, metricKeyOfTag(settings, scalar.tag)).first;
      const std::string& key = known->second;
      if (key.empty()) continue;  // dropped with --tag TAG=
      if (key == tensorboard::kTokensTag)
        run.tokens_at[event.step] = scalar.value;
      else if (key == tensorboard::kFlopsTag)
        run.flops_at[event.step] = scalar.value;
      else
        run.curves[key].push_back({event.step, scalar.value, event.wall_time});
    }
  }
}

nlohmann::json tomlNodeAsJson(const toml::node& node) {
  if (const auto* table = node.as_table()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : *table) out[std::string(key.str())] = tomlNodeAsJson(value);
    return out;
  }
  if (const auto* array = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& value : *array) out.push_back(tomlNodeAsJson(value));
    return out;
  }
  if (const auto* v = node.as_integer()) return v->get();
  if (const auto* v = node.as_floating_point()) return v->get();
  if (const auto* v = node.as_boolean()) return v->get();
  if (const auto* v = node.as_string()) return v->get();
  std::ostringstream text;  // dates and times
  node.visit([&](const auto& n) { text << n; });
  return text.str();
}

nlohmann::json jsonFile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw UserError(path.string() + ": cannot be read. Check its permissions");
  nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  if (json.is_discarded())
    throw UserError(path.string() +
                    ": not valid JSON. Fix it, or move it away to import the run "
                    "without it");
  if (!json.is_object())
    throw UserError(path.string() + ": the run's options must be a JSON object ({...})");
  return json;
}

}  // namespace

nlohmann::json tomlFileAsJson(const std::string& path) {
  return tomlNodeAsJson(parseTomlString(readTextFile(path), path));
}

std::string runNameOfPath(const std::string& relative) {
  std::string name = relative;
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
          c == '-'))
      c = '_';
  return name;
}

void keepLastPointPerStep(ImportedRun& run) {
  for (auto& [key, points] : run.curves) {
    std::stable_sort(
        points.begin(), points.end(),
        [](const ImportedPoint& a, const ImportedPoint& b) { return a.step < b.step; });
    size_t out = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      if (out > 0 && points[out - 1].step == points[i].step)
        points[out - 1] = points[i];
      else
        points[out++] = points[i];
    }
    points.resize(out);
  }
}

std::vector<ImportedRun> readTensorBoardLogdir(const std::string& dir,
                                               const ImportSettings& settings) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UserError(dir +
                    ": not a directory. Give the TensorBoard log directory (the one you "
                    "pass to tensorboard --logdir) or one run's directory");
  const fs::path root = fs::path(dir).lexically_normal();
  std::map<fs::path, std::vector<fs::path>> files_by_dir;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    if (it->path().filename().string().rfind(kEventFilePrefix, 0) == 0)
      files_by_dir[it->path().parent_path()].push_back(it->path());
  }
  if (ec) throw UserError(dir + ": cannot be listed (" + ec.message() + ")");
  if (files_by_dir.empty())
    throw UserError(dir + ": no " + std::string(kEventFilePrefix) +
                    "* files in it or below it. Give the directory TensorBoard was pointed at");

  std::vector<ImportedRun> runs;
  for (auto& [run_dir, files] : files_by_dir) {
    std::sort(files.begin(), files.end());
    ImportedRun run;
    const fs::path relative = run_dir.lexically_relative(root);
    const std::string rel = relative.empty() || relative == "." ? "" : relative.generic_string();
    fs::path whole = fs::absolute(root).lexically_normal();
    if (whole.filename().empty()) whole = whole.parent_path();  // "logs/" -> "logs"
    run.name = runNameOfPath(rel.empty() ? whole.filename().string() : rel);
    if (run.name.empty()) run.name = "run";
    run.origin = run_dir.string();
    nlohmann::json hparams = nlohmann::json::object();
    for (const auto& file : files) readEventFile(file, settings, run, hparams);
    keepLastPointPerStep(run);
    run.options = unflattenOptions(hparams);
    for (const char* name : {"config.json", "hparams.json"})
      if (fs::is_regular_file(run_dir / name)) mergeOptions(run.options, jsonFile(run_dir / name));
    for (const char* name : {"config.toml", "hparams.toml"})
      if (fs::is_regular_file(run_dir / name))
        mergeOptions(run.options, tomlFileAsJson((run_dir / name).string()));
    mergeOptions(run.options, settings.set_options);
    runs.push_back(std::move(run));
  }
  checkImportedRunNames(runs);
  return runs;
}

}  // namespace deepladder::imports
