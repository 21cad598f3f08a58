// Run ids with range checks (see run_id.h).
#include "core/run_id.h"

#include <cerrno>
#include <cstdlib>

#include "core/errors.h"

namespace deepladder {

bool looksLikeRunId(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

std::string runIdProblem(const std::string& text) {
  if (!looksLikeRunId(text))
    return "\"" + text.substr(0, 40) + (text.size() > 40 ? "...\"" : "\"") +
           " is not a run id (a whole number; see 'deepladder status')";
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0')
    return "run id " + text.substr(0, 40) + (text.size() > 40 ? "..." : "") +
           " is out of range (run ids go from 1 to 9223372036854775807)";
  if (value < 1) return "run id " + text + " is out of range (run ids start at 1)";
  return {};
}

int64_t parseRunId(const std::string& text) {
  const std::string problem = runIdProblem(text);
  if (!problem.empty()) throw UserError(problem);
  return std::strtoll(text.c_str(), nullptr, 10);
}

}  // namespace deepladder
