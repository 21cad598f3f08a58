// Text that leaves the program safely: a bounded, printable echo of user input in messages (a 5
// MB name is shown as its first bytes and its size, control bytes and invalid UTF-8 as \xNN), a
// UTF-8 check, and JSON output that never throws on invalid UTF-8 (nlohmann's dump() does by
// default; here bytes that are not UTF-8 become U+FFFD).
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace deepladder {

inline constexpr size_t kMaxEchoBytes = 80;

// At most about `max_bytes` of `text`, printable: control characters and bytes that are not
// valid UTF-8 become \xNN, and a longer text ends in "... (N bytes)".
std::string shownText(const std::string& text, size_t max_bytes = kMaxEchoBytes);

// `text` shortened to about `max_bytes` (UTF-8 kept whole) with "... (N bytes)" when longer.
// Unlike shownText it keeps newlines and does not escape.
std::string boundedText(const std::string& text, size_t max_bytes);

bool isValidUtf8(const std::string& text);

// json.dump(indent) with invalid UTF-8 replaced by U+FFFD instead of a thrown type_error.
std::string dumpJson(const nlohmann::json& json, int indent = -1);

}  // namespace deepladder
