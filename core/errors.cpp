// Formatting of user-facing error messages (see errors.h).
#include "core/errors.h"

#include "core/safe_text.h"

namespace deepladder {

namespace {

// Bounds on the parts of a message: whatever a user feeds in (a 5 MB key, a path with control
// bytes), the message stays a few lines of printable text.
constexpr size_t kMaxFileEcho = 400;
constexpr size_t kMaxKeyEcho = 160;
constexpr size_t kMaxProblemEcho = 2000;

}  // namespace

std::string locatedMessage(const std::string& file, long line, const std::string& key,
                           const std::string& problem, const std::string& hint) {
  std::string out = shownText(file, kMaxFileEcho);
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!key.empty()) out += shownText(key, kMaxKeyEcho) + ": ";
  out += boundedText(problem, kMaxProblemEcho);
  if (!hint.empty()) out += ". " + boundedText(hint, kMaxProblemEcho);
  return out;
}

}  // namespace deepladder
