// Numbers in the fits' JSON: a finite double is a JSON number, anything else (NaN: no value, no
// interval) is null; and back, null (or any non-number) reads as NaN. One pair of overloads for
// every writer and reader of fit JSON, so a missing value is spelled the same way everywhere.
#pragma once

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace deepladder::fitting {

inline nlohmann::json jsonNumber(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

inline double jsonNumber(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace deepladder::fitting
