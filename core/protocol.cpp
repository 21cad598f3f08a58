// JSON-lines encoding of the worker protocol (see protocol.h).
#include "core/protocol.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/run_status.h"
#include "core/safe_text.h"

namespace deepladder::protocol {

using nlohmann::json;

namespace {

// JSON has no NaN/Inf: send them as strings so a diverged loss survives the trip.
json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double toDouble(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  throw json::type_error::create(302, "expected a number", &v);
}

// An integer field: a JSON integer within int64, or a float with an integral value within int64
// (nlohmann's get<int64_t> converts any float, and one beyond the range is undefined behaviour).
// Absent: `fallback`, or a thrown json error when the field is required.
int64_t integer(const json& j, const char* key, std::optional<int64_t> fallback = std::nullopt) {
  const auto it = j.find(key);
  if (it == j.end()) {
    if (fallback) return *fallback;
    throw json::out_of_range::create(403, std::string("key '") + key + "' not found", &j);
  }
  if (it->is_number_unsigned()) {
    const auto value = it->get<uint64_t>();
    if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return static_cast<int64_t>(value);
  } else if (it->is_number_integer()) {
    return it->get<int64_t>();
  } else if (it->is_number_float()) {
    const double value = it->get<double>();
    if (std::floor(value) == value && std::abs(value) < 9.2e18) return static_cast<int64_t>(value);
  }
  throw json::type_error::create(302, std::string("'") + key + "' is not an integer in range", &j);
}

struct Encoder {
  json operator()(const Hello& m) const {
    return {{"type", "hello"},
            {"run_id", m.run_id},
            {"config_hash", m.config_hash},
            {"device", m.device},
            {"resumed_from", m.resumed_from},
            {"params", m.params},
            {"flops_per_token", m.flops_per_token}};
  }
  json operator()(const Metric& m) const {
    json values = json::object();
    for (const auto& [k, v] : m.values) values[k] = number(v);
    return {{"type", "metric"}, {"step", m.step},     {"tokens", m.tokens},
            {"flops", m.flops}, {"wall_s", m.wall_s}, {"values", values}};
  }
  json operator()(const Eval& m) const {
    return {{"type", "eval"}, {"step", m.step},       {"task", m.task},  {"n_bits", m.n_bits},
            {"T", m.T},       {"correct", m.correct}, {"total", m.total}};
  }
  json operator()(const Lens& m) const {
    json kl = json::array();
    for (double v : m.kl) kl.push_back(number(v));
    return {{"type", "lens"}, {"step", m.step}, {"kl", kl}};
  }
  json operator()(const Checkpoint& m) const {
    return {{"type", "checkpoint"}, {"step", m.step}, {"path", m.path}, {"sha256", m.sha256}};
  }
  json operator()(const Event& m) const {
    return {{"type", "event"}, {"step", m.step}, {"name", m.name}, {"detail", m.detail}};
  }
  json operator()(const Done& m) const {
    return {
        {"type", "done"},     {"status", toString(m.status)}, {"final_loss", number(m.final_loss)},
        {"steps", m.steps},   {"tokens", m.tokens},           {"flops", m.flops},
        {"wall_s", m.wall_s}, {"message", m.message}};
  }
  json operator()(const Error& m) const { return {{"type", "error"}, {"message", m.message}}; }
};

}  // namespace

// Never throws: text that is not UTF-8 (a shard path with Latin-1 bytes in an error message, say)
// is sent with U+FFFD in place of the bad bytes.
std::string encode(const Message& message) {
  return dumpJson(std::visit(Encoder{}, message));
}

namespace {
std::atomic<uint64_t> g_decode_calls{0};
}  // namespace

uint64_t decodeCalls() {
  return g_decode_calls.load(std::memory_order_relaxed);
}

std::optional<Message> decode(const std::string& line, std::string* why) {
  g_decode_calls.fetch_add(1, std::memory_order_relaxed);
  auto reject = [&](const std::string& reason) -> std::optional<Message> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (line.empty() || line[0] != '{') return reject("not a JSON object");
  try {
    const json j = json::parse(line);
    const std::string type = j.at("type").get<std::string>();
    if (type == "hello") {
      Hello m;
      m.run_id = j.at("run_id").get<std::string>();
      m.config_hash = j.value("config_hash", "");
      m.device = j.value("device", "");
      m.resumed_from = integer(j, "resumed_from", -1);
      m.params = integer(j, "params", 0);
      m.flops_per_token = j.value("flops_per_token", 0.0);
      return m;
    }
    if (type == "metric") {
      Metric m;
      m.step = integer(j, "step");
      m.tokens = integer(j, "tokens", 0);
      m.flops = j.value("flops", 0.0);
      m.wall_s = j.value("wall_s", 0.0);
      for (const auto& [k, v] : j.at("values").items()) m.values.emplace_back(k, toDouble(v));
      return m;
    }
    if (type == "eval") {
      Eval m;
      m.step = integer(j, "step");
      m.task = j.value("task", "");
      m.n_bits = integer(j, "n_bits", 0);
      m.T = integer(j, "T", 0);
      m.correct = integer(j, "correct");
      m.total = integer(j, "total");
      return m;
    }
    if (type == "lens") {
      Lens m;
      m.step = integer(j, "step");
      for (const auto& v : j.at("kl")) m.kl.push_back(toDouble(v));
      return m;
    }
    if (type == "checkpoint") {
      Checkpoint m;
      m.step = integer(j, "step");
      m.path = j.at("path").get<std::string>();
      m.sha256 = j.value("sha256", "");
      return m;
    }
    if (type == "event") {
      Event m;
      m.step = integer(j, "step");
      m.name = j.at("name").get<std::string>();
      m.detail = j.value("detail", "");
      return m;
    }
    if (type == "done") {
      Done m;
      const std::string word = j.value("status", toString(RunStatus::kFinished));
      const std::optional<RunStatus> status = parseRunStatus(word);
      if (!status || !completedTraining(*status))
        return reject("unknown done status \"" + shownText(word) + "\"");
      m.status = *status;
      m.final_loss = toDouble(j.at("final_loss"));
      m.steps = integer(j, "steps", 0);
      m.tokens = integer(j, "tokens", 0);
      m.flops = j.value("flops", 0.0);
      m.wall_s = j.value("wall_s", 0.0);
      m.message = j.value("message", "");
      return m;
    }
    if (type == "error") return Error{j.value("message", "")};
    return reject("unknown message type \"" + type + "\"");
  } catch (const json::exception& e) {
    return reject(e.what());
  }
}

}  // namespace deepladder::protocol
