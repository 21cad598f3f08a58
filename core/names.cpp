// The naming rule (see names.h).
#include "core/names.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "core/errors.h"
#include "core/safe_text.h"

namespace deepladder {

namespace fs = std::filesystem;

namespace {

bool allowedCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '+' || c == '-';
}

fs::path normalizedAbsolute(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = fs::path(path);
  return absolute.lexically_normal();
}

}  // namespace

std::optional<std::string> nameProblem(const std::string& name, size_t max_length) {
  if (name.empty()) return std::string("is empty");
  if (name.size() > max_length)
    return "is " + std::to_string(name.size()) + " characters long (at most " +
           std::to_string(max_length) + ")";
  if (name == "." || name == "..") return std::string("is a directory reference");
  for (char c : name)
    if (!allowedCharacter(c))
      return "has the character " + shownText(std::string(1, c), 8) +
             (c == '/' ? " (a path separator)" : "");
  return std::nullopt;
}

std::string nameRuleHint() {
  return "use 1 to " + std::to_string(kMaxNameLength) +
         " characters from A-Z a-z 0-9 . _ + - (not \".\" or \"..\"): names become directory names";
}

void checkName(const std::string& name, const std::string& what, const std::string& where,
               long line, const std::string& key) {
  if (auto problem = nameProblem(name))
    throw UserError(locatedMessage(
        where, line, key, what + " name \"" + shownText(name) + "\" " + *problem, nameRuleHint()));
}

bool isInsideDirectory(const std::string& root, const std::string& path) {
  const auto parts = [](const fs::path& p) {
    std::vector<fs::path> out;
    for (const auto& part : p)
      if (!part.empty()) out.push_back(part);
    return out;
  };
  const std::vector<fs::path> r = parts(normalizedAbsolute(root));
  const std::vector<fs::path> p = parts(normalizedAbsolute(path));
  return p.size() > r.size() && std::equal(r.begin(), r.end(), p.begin());
}

void requireInsideDirectory(const std::string& root, const std::string& path) {
  if (!isInsideDirectory(root, path))
    throw std::logic_error("run directory " + shownText(path, 200) + " is not inside " +
                           shownText(root, 200) + "; refusing to write there");
}

}  // namespace deepladder
