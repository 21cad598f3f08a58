// The TOML guard (see toml_guard.h): one pass over the text, no recursion.
#include "core/toml_guard.h"

#include <algorithm>
#include <cstring>

#include "core/errors.h"

namespace deepladder {

namespace {

class Scanner {
 public:
  Scanner(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  std::optional<std::string> run() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      const char before = last_;
      if (c != ' ' && c != '\t' && c != '\r') last_ = c;
      switch (c) {
        case '\n':
          ++line_;
          parts_ = 1;
          ++i_;
          break;
        case '#':
          skipComment();
          break;
        case '"':
        case '\'':
          // A quote opens a string only where a key or a value begins (toml++ reads a quote
          // anywhere else as part of a bare value, then examines what follows it).
          if (before != '\0' && std::strchr("\n=[{,.", before) != nullptr) {
            if (auto problem = skipString(c)) return problem;
          } else {
            ++i_;
          }
          break;
        case '[':
        case '{':
          ++nesting_;
          parts_ = 1;
          ++i_;
          if (nesting_ > kMaxTomlNesting)
            return problem("arrays, inline tables and table headers nested more than " +
                           std::to_string(kMaxTomlNesting) + " deep");
          break;
        case ']':
        case '}':
          nesting_ = std::max(0, nesting_ - 1);
          parts_ = 1;
          ++i_;
          break;
        case '=':
        case ',':
          parts_ = 1;
          ++i_;
          break;
        case '.':
          ++parts_;
          ++i_;
          if (parts_ > kMaxTomlKeyParts)
            return problem("a dotted key or table header with more than " +
                           std::to_string(kMaxTomlKeyParts) + " parts");
          break;
        default:
          if (static_cast<unsigned char>(c) >= 0x80) {
            if (i_ == 0 && text_.compare(0, 3, "\xEF\xBB\xBF") == 0) {  // a byte order mark
              i_ += 3;
              break;
            }
            return problem("a non-ASCII character outside a quoted string",
                           "quote a key that is not made of A-Z a-z 0-9 _ - (\"caf\u00e9\" = 1), "
                           "or remove the character");
          }
          ++i_;
      }
      if (nesting_ + parts_ > kMaxTomlDepth)
        return problem("keys and values nested more than " + std::to_string(kMaxTomlDepth) +
                       " levels deep (dotted key parts plus arrays and tables)");
    }
    return std::nullopt;
  }

 private:
  std::string problem(const std::string& what) const {
    return problem("TOML nested too deeply: " + what,
                   "deepladder files need a few levels; fix the file and try again");
  }
  std::string problem(const std::string& what, const std::string& hint) const {
    return locatedMessage(source_, line_, "", what, hint);
  }

  void skipComment() {
    while (i_ < text_.size() && text_[i_] != '\n') ++i_;
  }

  // A basic ("...", """...""") or literal ('...', '''...''') string; a one-line string that
  // runs into a newline ends there (the parser reports it), so the scan stays in step. In a
  // multi-line basic string toml++ 3.3 asks its whitespace table about the character after a
  // backslash, and about every character it skips after a line-ending backslash: a non-ASCII
  // one there is refused (the same unreachable point as outside strings).
  std::optional<std::string> skipString(char quote) {
    const bool multi = text_.compare(i_, 3, std::string(3, quote)) == 0;
    const bool basic = quote == '"';
    i_ += multi ? 3 : 1;
    bool skipping_whitespace = false;  // after a line-ending backslash
    while (i_ < text_.size()) {
      const char c = text_[i_];
      const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
      if (skipping_whitespace && !space) {
        skipping_whitespace = false;
        if (static_cast<unsigned char>(c) >= 0x80) return nonAsciiAfterBackslash();
      }
      if (c == '\n') {
        if (!multi) return std::nullopt;
        ++line_;
      } else if (c == '\\' && basic) {
        const char next = i_ + 1 < text_.size() ? text_[i_ + 1] : '\0';
        if (multi && static_cast<unsigned char>(next) >= 0x80) return nonAsciiAfterBackslash();
        if (multi && (next == ' ' || next == '\t' || next == '\r' || next == '\n')) {
          skipping_whitespace = true;
          ++i_;
          continue;
        }
        if (next == '\n') ++line_;
        i_ += 2;
        continue;
      } else if (c == quote) {
        if (!multi) {
          ++i_;
          return std::nullopt;
        }
        if (text_.compare(i_, 3, std::string(3, quote)) == 0) {
          i_ += 3;
          // Up to two more quotes may close it (""""" is allowed by TOML 1.0).
          for (int k = 0; k < 2 && i_ < text_.size() && text_[i_] == quote; ++k) ++i_;
          return std::nullopt;
        }
      }
      ++i_;
    }
    return std::nullopt;
  }

  std::string nonAsciiAfterBackslash() const {
    return problem("a non-ASCII character right after a backslash in a multi-line string",
                   "escape it (\\u00e9) or put something else first");
  }

  const std::string& text_;
  const std::string& source_;
  size_t i_ = 0;
  long line_ = 1;
  int nesting_ = 0;
  int parts_ = 1;     // parts of the key (or dots of the value) since the last separator
  char last_ = '\n';  // the last character outside strings that is not a space or a tab
};

}  // namespace

std::optional<std::string> tomlGuardProblem(const std::string& text, const std::string& source) {
  return Scanner(text, source).run();
}

void checkTomlGuard(const std::string& text, const std::string& source) {
  if (auto problem = tomlGuardProblem(text, source)) throw UserError(*problem);
}

}  // namespace deepladder
