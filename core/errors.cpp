// Formatting of user-facing error messages (see errors.h).
#include "core/errors.h"

namespace deepladder {

std::string locatedMessage(const std::string& file, long line, const std::string& key,
                           const std::string& problem, const std::string& hint) {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!key.empty()) out += key + ": ";
  out += problem;
  if (!hint.empty()) out += ". " + hint;
  return out;
}

}  // namespace deepladder
