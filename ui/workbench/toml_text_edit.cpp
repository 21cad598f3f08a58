// Editing a TOML text in place (see toml_text_edit.h).
#include "ui/workbench/toml_text_edit.h"

#include <sstream>
#include <vector>

#include "core/options/option_schema.h"
#include "core/toml_guard.h"

namespace deepladder::ui {
namespace {

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Byte index of the 1-based (UTF-8 character) column `column` in `line`.
size_t byteOfColumn(const std::string& line, size_t column) {
  size_t chars = 1, i = 0;
  while (i < line.size() && chars < column) {
    ++i;
    while (i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) ++i;
    ++chars;
  }
  return i;
}

bool isHeaderLine(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  return first != std::string::npos && line[first] == '[';
}

bool isBlankOrComment(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos || line[first] == '#';
}

// The header line `[table]` (index into lines), or -1.
int headerLineOf(const std::vector<std::string>& lines, const std::string& table) {
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string compact;
    for (char c : lines[i].substr(0, lines[i].find('#')))
      if (c != ' ' && c != '\t') compact += c;
    if (compact == "[" + table + "]") return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

// The node at [table] (dotted, e.g. "resources.slurm") or null.
toml::table* tableAt(toml::table& doc, const std::string& path, bool create) {
  toml::table* t = &doc;
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '.')) {
    toml::node* next = t->get(part);
    if (!next) {
      if (!create) return nullptr;
      next = &t->insert_or_assign(part, toml::table{}).first->second;
    }
    t = next->as_table();
    if (!t) return nullptr;
  }
  return t;
}

const toml::table* tableAt(const toml::table& doc, const std::string& path) {
  return tableAt(const_cast<toml::table&>(doc), path, false);
}

std::string tomlRepr(const toml::node& node) {
  // Numbers in their shortest exact spelling (0.3, not toml++'s 0.29999999999999999).
  if (auto d = node.value_exact<double>()) return options::formatValue(*d);
  if (const toml::array* array = node.as_array()) {
    if (array->empty()) return "[]";
    std::string out = "[ ";
    for (size_t i = 0; i < array->size(); ++i) out += (i ? ", " : "") + tomlRepr(*array->get(i));
    return out + " ]";
  }
  std::ostringstream out;
  node.visit([&out](const auto& v) { out << v; });
  return out.str();
}

std::optional<std::string> editValueInPlace(const std::string& text, const std::string& table,
                                            const std::string& key, const toml::node* want) {
  toml::table doc;
  if (tomlGuardProblem(text, "editor")) return std::nullopt;  // toml++ 3.3 would overflow
  try {
    doc = toml::parse(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const toml::table* t = tableAt(doc, table);
  const toml::node* have = t ? t->get(key) : nullptr;
  std::vector<std::string> lines = splitLines(text);
  if (have) {
    const auto& where = have->source();
    const size_t first = where.begin.line - 1, last = where.end.line - 1;
    if (last >= lines.size()) return std::nullopt;
    const size_t begin = byteOfColumn(lines[first], where.begin.column);
    const size_t end = byteOfColumn(lines[last], where.end.column);
    const std::string before = lines[first].substr(0, begin);
    const std::string after = lines[last].substr(end);
    if (want) {
      lines[first] = before + tomlRepr(*want) + after;
      lines.erase(lines.begin() + first + 1, lines.begin() + last + 1);
    } else {
      // Only a `key = value` line of its own (and its comment) goes.
      std::string lead = before;
      lead.erase(0, lead.find_first_not_of(" \t"));
      std::string rest = after;
      rest.erase(0, rest.find_first_not_of(" \t"));
      if (lead.rfind(key, 0) != 0 || lead.find('=') == std::string::npos ||
          (!rest.empty() && rest[0] != '#'))
        return std::nullopt;
      lines.erase(lines.begin() + first, lines.begin() + last + 1);
    }
  } else {
    if (!want) return text;
    const std::string line = key + " = " + tomlRepr(*want);
    const int header = headerLineOf(lines, table);
    if (header >= 0) {
      // After the last key of the table's section.
      size_t at = header + 1;
      for (size_t i = header + 1; i < lines.size() && !isHeaderLine(lines[i]); ++i)
        if (!isBlankOrComment(lines[i])) at = i + 1;
      lines.insert(lines.begin() + at, line);
    } else if (t) {
      return std::nullopt;  // a table without a header of its own (dotted or inline)
    } else {
      if (!lines.empty() && !lines.back().empty()) lines.emplace_back();
      lines.push_back("[" + table + "]");
      lines.push_back(line);
    }
  }
  std::string edited = joinLines(lines);
  if (tomlGuardProblem(edited, "editor")) return std::nullopt;
  try {  // the edit must read back as exactly the value asked for
    toml::table check = toml::parse(edited);
    const toml::table* ct = tableAt(check, table, false);
    const toml::node* got = ct ? ct->get(key) : nullptr;
    if ((got == nullptr) != (want == nullptr)) return std::nullopt;
    if (got && tomlRepr(*got) != tomlRepr(*want)) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return edited;
}

}  // namespace deepladder::ui
