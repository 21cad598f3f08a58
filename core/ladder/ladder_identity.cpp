// A ladder's identity from its parsed content (see ladder_identity.h).
#include "core/ladder/ladder_identity.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/sha256.h"
#include "core/toml_reader.h"

namespace deepladder::ladder {

namespace {

// Values other than tables, arrays, strings, booleans and finite numbers are tagged, so that no
// two TOML values share a spelling ("inf" the string vs inf the float, a date vs its text).
nlohmann::json tagged(const char* type, const std::string& text) {
  return nlohmann::json::object({{"toml " + std::string(type), text}});
}

template <typename T>
std::string streamed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

nlohmann::json canonical(const toml::node& node) {
  if (const toml::table* table = node.as_table()) {
    nlohmann::json out = nlohmann::json::object();  // std::map: keys sorted
    for (const auto& [key, value] : *table) out[std::string(key.str())] = canonical(value);
    return out;
  }
  if (const toml::array* array = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const toml::node& element : *array) out.push_back(canonical(element));
    return out;
  }
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return i->get();
  if (const auto* b = node.as_boolean()) return b->get();
  if (const auto* f = node.as_floating_point()) {
    const double v = f->get();
    if (std::isfinite(v)) return v;  // written as a float ("1.0"), apart from the integer 1
    return tagged("float", std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
  }
  if (const auto* d = node.as_date()) return tagged("date", streamed(d->get()));
  if (const auto* t = node.as_time()) return tagged("time", streamed(t->get()));
  if (const auto* dt = node.as_date_time()) return tagged("date-time", streamed(dt->get()));
  return nullptr;  // every TOML value is one of the above
}

}  // namespace

std::string canonicalLadderContent(const toml::table& root) {
  return canonical(root).dump();
}

std::string ladderIdentityHash(const toml::table& root) {
  const std::string content = canonicalLadderContent(root);
  return sha256Hex(content.data(), content.size()).substr(0, 16);
}

std::string ladderIdentityHash(const std::string& text, const std::string& source_name) {
  return ladderIdentityHash(parseTomlString(text, source_name));
}

}  // namespace deepladder::ladder
