// The benchmark's file layout, written and read (see reference_io.h).
#include "core/squaring/reference_io.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/errors.h"
#include "core/squaring/modular_arithmetic.h"
#include "core/squaring/tokens.h"

namespace deepladder::squaring {

namespace {

constexpr int32_t kIgnoreLabel = -100;

void appendInt(std::string& out, int64_t v) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

void appendUnsigned(std::string& out, uint64_t v) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

// json.dumps of a str with ensure_ascii (every string here is ASCII).
void appendString(std::string& out, const std::string& s) {
  out += '"';
  for (const unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\u%04x", c);
          out += hex;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

// A Python list of ints: "[1, 2, 3]".
void appendList(std::string& out, const int32_t* values, int count) {
  out += '[';
  for (int i = 0; i < count; ++i) {
    if (i) out += ", ";
    appendInt(out, values[i]);
  }
  out += ']';
}

// input_ids and labels of one record (the benchmark's tokenize_squaring_mod_with_result).
struct RecordTokens {
  int32_t input_ids[96];
  int32_t labels[96];
  int input_count = 0, label_count = 0;
};

RecordTokens recordTokens(const ReferenceRecord& r, bool separate) {
  RecordTokens t;
  int32_t answer[20];
  const int answer_len = writeDigitTokens(r.result, answer);
  if (separate) {
    t.input_count = writePromptTokens(r.modulus, r.x, r.time_steps, t.input_ids);
    std::copy(answer, answer + answer_len, t.labels);
    t.label_count = answer_len;
    return t;
  }
  int k = 0;
  t.input_ids[k++] = kBos;
  k += writePromptTokens(r.modulus, r.x, r.time_steps, t.input_ids + k);
  t.input_ids[k++] = kAns;
  std::copy(answer, answer + answer_len, t.input_ids + k);
  k += answer_len;
  t.input_ids[k++] = kEos;
  t.input_count = t.label_count = k;
  std::fill(t.labels, t.labels + k, kIgnoreLabel);
  const int answer_start = k - answer_len - 1;
  std::copy(answer, answer + answer_len, t.labels + answer_start);
  t.labels[k - 1] = kEos;
  return t;
}

// Python's json.dumps for the ints and strings of the config (nlohmann prints both alike).
nlohmann::json optionalInt(const std::optional<int64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

void appendReferenceRecordJson(std::string& out, const ReferenceConfig& config,
                               const ReferenceRecord& r, int64_t index) {
  const RecordTokens tokens = recordTokens(r, config.separate_input_output);
  out += "{\"configured_modulus_bits\": ";
  if (r.configured_bits == 0)
    out += "null";
  else
    appendInt(out, r.configured_bits);
  out += ", \"generator_family\": ";
  appendString(out, config.generator_family);
  out += ", \"input_ids\": ";
  appendList(out, tokens.input_ids, tokens.input_count);
  out += ", \"instance_id\": \"squaring_mod_b";
  if (r.configured_bits == 0)
    out += "fixed";
  else
    appendInt(out, r.configured_bits);
  out += "_t";
  appendInt(out, r.time_steps);
  out += "_s";
  appendUnsigned(out, config.seed);
  out += '_';
  char padded[32];
  std::snprintf(padded, sizeof padded, "%08lld", static_cast<long long>(index));  // {index:08d}
  out += padded;
  out += "\", \"label_exact\": true, \"label_method\": \"trapdoor_phi\", \"labels\": ";
  appendList(out, tokens.labels, tokens.label_count);
  out += ", \"modulus\": ";
  appendUnsigned(out, r.modulus);
  out += ", \"modulus_bits\": ";
  appendInt(out, bitLength(r.modulus));
  out += ", \"result\": ";
  appendUnsigned(out, r.result);
  out += ", \"seed\": ";
  appendUnsigned(out, config.seed);
  out += ", \"split\": ";
  appendString(out, referenceSplitName(r));
  out += ", \"time_steps\": ";
  appendInt(out, r.time_steps);
  out += ", \"x\": ";
  appendUnsigned(out, r.x);
  out += '}';
}

std::string referenceRecordJson(const ReferenceConfig& config, const ReferenceRecord& record,
                                int64_t index) {
  std::string out;
  appendReferenceRecordJson(out, config, record, index);
  return out;
}

std::string referenceDatasetConfigJson(const ReferenceConfig& c,
                                       const std::vector<ReferenceRecord>& records) {
  using nlohmann::json;
  json g;  // asdict(config), factors redacted (std::map keys: sorted like sort_keys=True)
  g["output_dir"] = c.output_dir;
  g["modulus_bits"] = c.modulus_bits;
  g["fixed_p"] = c.fixedModulus() ? json("<redacted>") : json(nullptr);
  g["fixed_q"] = c.fixedModulus() ? json("<redacted>") : json(nullptr);
  if (c.fixedModulus()) g["fixed_modulus"] = c.fixed_p * c.fixed_q;
  g["time_steps"] = c.time_steps;
  g["fixed_time_steps"] = optionalInt(c.fixed_time_steps);
  g["examples_per_setting"] = c.examples_per_setting;
  g["seed"] = c.seed;
  g["train_fraction"] = c.train_fraction;
  g["test_fraction"] = c.test_fraction;
  g["ood_time_steps"] = c.ood_time_steps;
  g["ood_examples_per_setting"] = optionalInt(c.ood_examples_per_setting);
  g["generator_family"] = c.generator_family;
  g["separate_input_output"] = c.separate_input_output;
  g["split_group"] = c.split_group;
  g["factor_modulus"] = nullptr;
  g["factor_remainder"] = nullptr;
  g["separate_ood_splits"] = c.separate_ood_splits;
  g["depth_evaluation_time_steps"] = c.depth_evaluation_time_steps;
  g["depth_evaluation_examples_per_setting"] = optionalInt(c.depth_evaluation_examples_per_setting);
  g["depth_evaluation_exhaustive_x"] = c.depth_evaluation_exhaustive_x;
  g["ood_n_depth_evaluation_modulus_bits"] = c.ood_n_depth_evaluation_modulus_bits;
  g["ood_n_depth_evaluation_examples_per_setting"] =
      optionalInt(c.ood_n_depth_evaluation_examples_per_setting);

  std::map<std::string, int64_t> split_counts;
  int64_t max_seq_len = 0, max_time_steps = 0;
  int max_bits = 0;
  for (const auto& r : records) {
    ++split_counts[referenceSplitName(r)];
    max_seq_len =
        std::max<int64_t>(max_seq_len, recordTokens(r, c.separate_input_output).input_count);
    max_bits = std::max(max_bits, bitLength(r.modulus));
    max_time_steps = std::max(max_time_steps, r.time_steps);
  }
  json d;
  d["dataset_kind"] = "squaring_mod";
  d["generator_config"] = g;
  d["split_group"] = c.split_group;
  d["factor_congruence"] = nullptr;
  d["token_ids"] = {{"PAD", kPad},  {"BOS", kBos}, {"N", kTokenN}, {"X", kTokenX},
                    {"T", kTokenT}, {"ANS", kAns}, {"EOS", kEos},  {"DIGIT_OFFSET", kDigitZero}};
  d["vocab_size"] = kVocabSize;
  d["max_seq_len"] = max_seq_len;
  d["max_modulus_bits"] = max_bits;
  d["max_time_steps"] = max_time_steps;
  d["num_examples"] = records.size();
  d["split_counts"] = split_counts;
  d["data_format"] = c.separate_input_output ? "separate_input_output" : "causal_lm";
  d["label_format"] =
      c.separate_input_output ? "tail_aligned_decimal_residue" : "next_token_decimal_residue";
  d["label_method"] = "trapdoor_phi";
  return d.dump(2, ' ', /*ensure_ascii=*/true) + "\n";
}

std::vector<WrittenFile> writeReferenceDataset(const std::string& directory,
                                               const ReferenceConfig& config,
                                               const std::vector<ReferenceRecord>& records) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw UserError(directory + ": cannot create the output directory: " + ec.message());
  std::map<std::string, std::string> texts;  // split -> file text
  std::vector<std::string> order;            // first appearance
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string split = referenceSplitName(records[i]);
    auto [it, inserted] = texts.try_emplace(split);
    if (inserted) order.push_back(split);
    appendReferenceRecordJson(it->second, config, records[i], static_cast<int64_t>(i));
    it->second += '\n';
  }
  const std::filesystem::path dir(directory);
  for (const char* standard : {"train", "eval", "test"})
    if (!texts.count(standard)) std::filesystem::remove(dir / (std::string(standard) + ".jsonl"));
  std::vector<WrittenFile> written;
  for (const auto& split : order) {
    const std::string name = split + ".jsonl";
    writeTextAtomically((dir / name).string(), texts[split]);
    int64_t lines = 0;
    for (const char ch : texts[split]) lines += ch == '\n';
    written.push_back({name, lines});
  }
  writeTextAtomically((dir / "dataset_config.json").string(),
                      referenceDatasetConfigJson(config, records));
  written.push_back({"dataset_config.json", 1});
  return written;
}

Example exampleFromReferenceJson(const nlohmann::json& line, const std::string& where) {
  auto field = [&](const char* key) -> uint64_t {
    const auto it = line.find(key);
    if (it == line.end() || !it->is_number_integer() || it->get<int64_t>() < 0)
      throw UserError(where + ": " + key +
                      ": missing or not a non-negative integer. Regenerate the file with "
                      "`deepladder squaring generate --compat reference`");
    return it->get<uint64_t>();
  };
  Example e;
  e.n = field("modulus");
  e.x = field("x");
  e.t = static_cast<int64_t>(field("time_steps"));
  e.z = field("result");
  if (e.n < 3) throw UserError(where + ": modulus: must be at least 3");
  if (e.x < 1 || e.x >= e.n) throw UserError(where + ": x: must lie in [1, modulus)");
  if (e.z >= e.n) throw UserError(where + ": result: must be below modulus");
  if (line.contains("input_ids") || line.contains("labels")) {
    ReferenceRecord r;
    r.modulus = e.n;
    r.x = e.x;
    r.time_steps = e.t;
    r.result = e.z;
    bool matched = false;
    for (const bool separate : {true, false}) {
      const RecordTokens t = recordTokens(r, separate);
      const std::vector<int32_t> ids(t.input_ids, t.input_ids + t.input_count);
      const std::vector<int32_t> labels(t.labels, t.labels + t.label_count);
      if (line.value("input_ids", nlohmann::json()) == nlohmann::json(ids) &&
          line.value("labels", nlohmann::json()) == nlohmann::json(labels))
        matched = true;
    }
    if (!matched)
      throw UserError(where +
                      ": input_ids/labels: not the separate or causal tokens of (modulus, x, "
                      "time_steps, result)");
  }
  return e;
}

}  // namespace deepladder::squaring
