// Validated TOML reads (see toml_reader.h).
#include "core/toml_reader.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "core/nearest_word.h"
#include "core/safe_text.h"
#include "core/toml_guard.h"

namespace deepladder {

const toml::table TomlReader::kEmpty{};

std::string tomlTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date or time";
  }
}

TomlReader::TomlReader(const toml::table& table, std::string file, std::string path)
    : table_(&table), file_(std::move(file)), path_(std::move(path)) {}

std::string TomlReader::qualified(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

long TomlReader::lineOf(const std::string& key) const {
  if (const toml::node* node = table_->get(key))
    return static_cast<long>(node->source().begin.line);
  return static_cast<long>(table_->source().begin.line);
}

void TomlReader::fail(const std::string& key, const std::string& problem,
                      const std::string& hint) const {
  throw UserError(locatedMessage(file_, lineOf(key), qualified(key), problem, hint));
}

bool TomlReader::has(const std::string& key) const {
  return table_->contains(key);
}

const toml::node* TomlReader::find(const std::string& key) {
  known_.insert(key);
  const toml::node* node = table_->get(key);
  if (node) consumed_.insert(key);
  return node;
}

int64_t TomlReader::integer(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  const toml::node* node = find(key);
  if (!node) return fallback;
  int64_t value = 0;
  if (auto v = node->value_exact<int64_t>()) {
    value = *v;
  } else if (auto d = node->value_exact<double>();
             d && std::floor(*d) == *d && std::abs(*d) < 9e18) {
    value = static_cast<int64_t>(*d);  // 1e6 written as a float is fine for a count
  } else {
    fail(key, "expected an integer, found " + tomlTypeName(*node));
  }
  if (value < min || value > max)
    fail(key, "value " + std::to_string(value) + " is out of range",
         "use a value from " + std::to_string(min) + " to " + std::to_string(max));
  return value;
}

double TomlReader::number(const std::string& key, double fallback, double min, double max) {
  const toml::node* node = find(key);
  if (!node) return fallback;
  double value = 0;
  if (auto d = node->value_exact<double>())
    value = *d;
  else if (auto i = node->value_exact<int64_t>())
    value = static_cast<double>(*i);
  else
    fail(key, "expected a number, found " + tomlTypeName(*node));
  if (!std::isfinite(value) || value < min || value > max) {
    std::ostringstream hint;
    hint << "use a value from " << min << " to " << max;
    std::ostringstream shown;
    shown << value;
    fail(key, "value " + shown.str() + " is out of range", hint.str());
  }
  return value;
}

bool TomlReader::boolean(const std::string& key, bool fallback) {
  const toml::node* node = find(key);
  if (!node) return fallback;
  if (auto b = node->value_exact<bool>()) return *b;
  fail(key, "expected true or false, found " + tomlTypeName(*node));
}

std::string TomlReader::string(const std::string& key, const std::string& fallback) {
  const toml::node* node = find(key);
  if (!node) return fallback;
  if (auto s = node->value_exact<std::string>()) return *s;
  fail(key, "expected a string, found " + tomlTypeName(*node));
}

std::string TomlReader::choice(const std::string& key, const std::string& fallback,
                               const std::vector<std::string>& allowed) {
  std::string value = string(key, fallback);
  for (const auto& a : allowed)
    if (a == value) return value;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + ("\"" + a + "\"");
  fail(key, "unknown value \"" + value + "\"", "use one of " + list);
}

std::vector<int64_t> TomlReader::integers(const std::string& key, int64_t min, int64_t max) {
  std::vector<int64_t> out;
  const toml::node* node = find(key);
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (!array) fail(key, "expected an array of integers, found " + tomlTypeName(*node));
  for (const toml::node& element : *array) {
    auto v = element.value_exact<int64_t>();
    if (!v)
      fail(key, "expected an array of integers, found an element that is " + tomlTypeName(element));
    if (*v < min || *v > max)
      fail(key, "element " + std::to_string(*v) + " is out of range",
           "use values from " + std::to_string(min) + " to " + std::to_string(max));
    out.push_back(*v);
  }
  return out;
}

std::vector<std::string> TomlReader::strings(const std::string& key) {
  std::vector<std::string> out;
  const toml::node* node = find(key);
  if (!node) return out;
  if (auto s = node->value_exact<std::string>()) return {*s};
  const toml::array* array = node->as_array();
  if (!array) fail(key, "expected a string or an array of strings, found " + tomlTypeName(*node));
  for (const toml::node& element : *array) {
    auto v = element.value_exact<std::string>();
    if (!v)
      fail(key, "expected an array of strings, found an element that is " + tomlTypeName(element));
    out.push_back(*v);
  }
  return out;
}

TomlReader TomlReader::table(const std::string& key) {
  const toml::node* node = find(key);
  if (!node) return TomlReader(kEmpty, file_, qualified(key));
  const toml::table* sub = node->as_table();
  if (!sub) fail(key, "expected a table ([" + qualified(key) + "]), found " + tomlTypeName(*node));
  return TomlReader(*sub, file_, qualified(key));
}

std::vector<TomlReader> TomlReader::tableArray(const std::string& key) {
  std::vector<TomlReader> out;
  const toml::node* node = find(key);
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (!array)
    fail(key,
         "expected an array of tables ([[" + qualified(key) + "]]), found " + tomlTypeName(*node));
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::table* entry = (*array)[i].as_table();
    if (!entry) fail(key, "entry " + std::to_string(i + 1) + " is not a table");
    out.emplace_back(*entry, file_, qualified(key) + "[" + std::to_string(i) + "]");
  }
  return out;
}

std::vector<std::string> TomlReader::keys() const {
  std::vector<std::pair<long, std::string>> ordered;
  for (const auto& [k, v] : *table_)
    ordered.emplace_back(static_cast<long>(v.source().begin.line), std::string(k.str()));
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& [line, k] : ordered) out.push_back(k);
  return out;
}

void TomlReader::finish() const {
  for (const auto& [k, v] : *table_) {
    std::string key(k.str());
    if (consumed_.count(key)) continue;
    const std::string near =
        nearestWord(key, std::vector<std::string>(known_.begin(), known_.end()));
    throw UserError(locatedMessage(
        file_, static_cast<long>(v.source().begin.line), qualified(key), "unknown key",
        near.empty() ? "check the spelling; `deepladder options` lists the keys of [" +
                           (path_.empty() ? std::string("top level") : path_) + "]"
                     : "did you mean " + near + "?"));
  }
}

namespace {

// Every TOML text deepladder reads comes through here: the guard first (toml++ 3.3 overflows its
// stack on deep nesting and has undefined behaviour on some non-ASCII input; core/toml_guard.h).
toml::table parseOrThrow(const std::string& text, const std::string& source_name) {
  checkTomlGuard(text, source_name);
  try {
    return toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw UserError(shownText(source_name, 400) + ":" + std::to_string(where.line) + ":" +
                    std::to_string(where.column) +
                    ": TOML syntax error: " + boundedText(std::string(e.description()), 500) +
                    ". Fix the file and try again");
  }
}

}  // namespace

std::string readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UserError(path + ": cannot open the file. Check that the path exists and is readable");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

toml::table parseTomlString(const std::string& text, const std::string& source_name) {
  return parseOrThrow(text, source_name);
}

}  // namespace deepladder
