// Errors that end an operation and reach the user. A UserError is bad input (a config file, a
// flag, a data file): its message names the file, the line or field, and what to do, and the
// CLI exits with status 2. Anything else that escapes is a bug or an environment failure.
#pragma once

#include <stdexcept>
#include <string>

namespace deepladder {

// Exit status the CLI uses for bad input.
inline constexpr int kExitBadInput = 2;

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

// "FILE:LINE: KEY: PROBLEM. HINT" in one place so every message reads the same.
std::string locatedMessage(const std::string& file, long line, const std::string& key,
                           const std::string& problem, const std::string& hint = {});

}  // namespace deepladder
