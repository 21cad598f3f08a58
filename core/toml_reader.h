// Typed, validated reads from a toml++ table with errors that name the file, line and key.
// Every key a reader does not consume is reported as unknown by finish(), so a typo in a
// config file is an error, not a silently ignored setting. Used by run configs and ladder specs.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace deepladder {

// "a string", "an integer", "a number", ...: a TOML value's type as error messages name it.
std::string tomlTypeName(const toml::node& node);

class TomlReader {
 public:
  // `path` is the dotted prefix of this table ("model", "arms.vanilla"); "" for the root.
  TomlReader(const toml::table& table, std::string file, std::string path = {});

  bool has(const std::string& key) const;

  // Each getter: absent -> `fallback`; wrong type or out of range -> UserError.
  int64_t integer(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  double number(const std::string& key, double fallback, double min, double max);
  bool boolean(const std::string& key, bool fallback);
  std::string string(const std::string& key, const std::string& fallback);
  std::string choice(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& allowed);
  std::vector<int64_t> integers(const std::string& key, int64_t min, int64_t max);
  std::vector<std::string> strings(const std::string& key);

  // A sub-table reader; absent -> an empty table. Marks the key as consumed.
  TomlReader table(const std::string& key);
  // An array of tables ([[key]]): one reader per entry, path "key[i]". Absent -> empty.
  std::vector<TomlReader> tableArray(const std::string& key);
  // The underlying table (to copy overrides out of it).
  const toml::table& raw() const { return *table_; }
  // Marks a key consumed without reading it (for keys handled by hand).
  void skip(const std::string& key) {
    consumed_.insert(key);
    known_.insert(key);
  }
  // Names a key this table may hold without reading it, so that finish() can suggest it for a
  // misspelled one (every getter does this for its own key).
  void expect(const std::string& key) { known_.insert(key); }

  // Names of sub-tables (in file order) for sections like [arms.NAME].
  std::vector<std::string> keys() const;

  // Throws UserError naming the first key that no getter consumed, with the nearest known key.
  void finish() const;

  // A UserError at this key's line, for checks that span several keys.
  [[noreturn]] void fail(const std::string& key, const std::string& problem,
                         const std::string& hint = {}) const;

  const std::string& file() const { return file_; }
  std::string qualified(const std::string& key) const;
  long lineOf(const std::string& key) const;

 private:
  const toml::node* find(const std::string& key);

  const toml::table* table_;
  std::string file_;
  std::string path_;
  std::set<std::string> consumed_;
  std::set<std::string> known_;
  static const toml::table kEmpty;
};

// Parses TOML text; syntax errors become a UserError with file:line:column.
toml::table parseTomlString(const std::string& text, const std::string& source_name);

// A whole file as text; UserError naming the path when it cannot be read.
std::string readTextFile(const std::string& path);

}  // namespace deepladder
