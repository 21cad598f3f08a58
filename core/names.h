// The one rule for names that become directory names or Slurm job names: ladder, arm, size and
// run names. A name is 1 to kMaxNameLength characters (a run name: kMaxRunNameLength, as a
// ladder's arm-size-sSEED is longer) from [A-Za-z0-9._+-] and is not "." or "..", so it can never
// leave its parent directory, carry a NUL, a newline or a terminal escape, or overflow a path
// component (255 bytes). Also: checking that a run directory lies under its work root, as a last
// line of defence.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace deepladder {

inline constexpr size_t kMaxNameLength = 64;
inline constexpr size_t kMaxRunNameLength = 200;

// What is wrong with `name` as a name ("is empty", "has the character '/'", ...), or nullopt.
std::optional<std::string> nameProblem(const std::string& name, size_t max_length = kMaxNameLength);

// The hint that goes with a name problem.
std::string nameRuleHint();

// Throws UserError "WHERE: KEY: <what> name "<shown>" <problem>. <hint>" when the name breaks
// the rule; `what` is "arm", "size", "ladder" or "run".
void checkName(const std::string& name, const std::string& what, const std::string& where,
               long line, const std::string& key);

// True when `path` (made absolute and normalized) lies strictly inside `root` (likewise).
bool isInsideDirectory(const std::string& root, const std::string& path);

// Throws std::logic_error when `path` is not inside `root`: names are checked at parse time, so
// this only fires on a bug or on a stored spec written before the rule existed.
void requireInsideDirectory(const std::string& root, const std::string& path);

}  // namespace deepladder
