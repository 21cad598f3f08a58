// CSV readers for results (see results_csv.h). Plain comma-separated values, no quoting: arm
// names are identifiers. Blank lines and lines starting with '#' are skipped.
#include "fitting/results_csv.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "core/errors.h"
#include "core/safe_text.h"

namespace deepladder::fitting {
namespace {

// --- tokenizing ---------------------------------------------------------------------------

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  const auto end = s.find_last_not_of(" \t\r\n");
  return s.substr(begin, end - begin + 1);
}

std::vector<std::string> splitFields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(trim(field));
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

struct CsvRow {
  long line = 0;
  std::vector<std::string> fields;
};

struct CsvTable {
  std::map<std::string, int> column;  // header name -> 0-based index
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
};

std::string where(const std::string& source, long line, int column0) {
  return source + ":" + std::to_string(line) + ":" + std::to_string(column0 + 1);
}

CsvTable tokenize(const std::string& text, const std::string& source) {
  CsvTable table;
  // A UTF-8 byte order mark (spreadsheets write one) is not part of the first column's name.
  const std::string bom = "\xEF\xBB\xBF";
  std::istringstream in(text.compare(0, bom.size(), bom) == 0 ? text.substr(bom.size()) : text);
  std::string line;
  long number = 0;
  bool have_header = false;
  while (std::getline(in, line)) {
    ++number;
    const std::string stripped = trim(line);
    if (stripped.empty() || stripped[0] == '#') continue;
    auto fields = splitFields(stripped);
    if (!have_header) {
      table.header = fields;
      for (int i = 0; i < static_cast<int>(fields.size()); ++i) {
        if (fields[i].empty() || table.column.count(fields[i]))
          throw UserError(
              locatedMessage(where(source, number, i), 0, "header",
                             "empty or repeated column name '" + shownText(fields[i]) + "'",
                             "name each column once"));
        table.column[fields[i]] = i;
      }
      have_header = true;
      continue;
    }
    if (fields.size() != table.header.size())
      throw UserError(locatedMessage(source + ":" + std::to_string(number), 0, "",
                                     "has " + std::to_string(fields.size()) +
                                         " fields, the header has " +
                                         std::to_string(table.header.size()),
                                     "every row needs one value per header column"));
    table.rows.push_back({number, std::move(fields)});
  }
  if (!have_header)
    throw UserError(locatedMessage(source, 0, "", "is empty",
                                   "expected a header such as arm,compute_flops,val_loss"));
  if (table.rows.empty())
    throw UserError(locatedMessage(source, 0, "", "has a header but no data rows"));
  return table;
}

int requireColumn(const CsvTable& table, const std::string& source,
                  const std::vector<std::string>& names, const std::string& expected_header) {
  for (const auto& name : names) {
    auto it = table.column.find(name);
    if (it != table.column.end()) return it->second;
  }
  throw UserError(locatedMessage(source, 1, "header", "missing column '" + names.front() + "'",
                                 "expected a header like " + expected_header));
}

std::optional<int> optionalColumn(const CsvTable& table, const std::string& name) {
  auto it = table.column.find(name);
  if (it == table.column.end()) return std::nullopt;
  return it->second;
}

// A finite number; `positive` also rejects <= 0. Empty optional cells read as NaN.
double number(const CsvRow& row, int column, const std::string& name, const std::string& source,
              bool positive, bool allow_empty = false) {
  const std::string& cell = row.fields[column];
  const std::string at = where(source, row.line, column);
  if (cell.empty()) {
    if (allow_empty) return std::nan("");
    throw UserError(locatedMessage(at, 0, name, "is empty", "give a number"));
  }
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  if (end == cell.c_str() || *end != '\0')
    throw UserError(locatedMessage(at, 0, name, "'" + shownText(cell) + "' is not a number"));
  if (!std::isfinite(value))
    throw UserError(locatedMessage(at, 0, name, "'" + cell + "' is NaN or infinite",
                                   "drop the run or give its finite value"));
  if (positive && value <= 0.0)
    throw UserError(locatedMessage(at, 0, name, "must be positive, got " + cell,
                                   "compute, losses, params and tokens are all > 0"));
  return value;
}

}  // namespace

// --- public ---------------------------------------------------------------------------------

ResultsTable parseResultsCsv(const std::string& text, const std::string& source) {
  const std::string expected = "arm,compute_flops,val_loss[,params,tokens,depth]";
  const CsvTable table = tokenize(text, source);
  const int arm = requireColumn(table, source, {"arm"}, expected);
  const int compute = requireColumn(table, source, {"compute_flops"}, expected);
  const int loss = requireColumn(table, source, {"val_loss"}, expected);
  const auto params = optionalColumn(table, "params");
  const auto tokens = optionalColumn(table, "tokens");
  const auto depth = optionalColumn(table, "depth");
  ResultsTable out;
  out.source = source;
  for (const auto& row : table.rows) {
    RunPoint p;
    p.arm = row.fields[arm];
    if (p.arm.empty())
      throw UserError(locatedMessage(where(source, row.line, arm), 0, "arm", "is empty",
                                     "name the arm of every run"));
    // Arm names go into tables, plots, JSON and the database: text, not arbitrary bytes.
    if (!isValidUtf8(p.arm) || shownText(p.arm, p.arm.size()) != p.arm)
      throw UserError(locatedMessage(
          where(source, row.line, arm), 0, "arm",
          "'" + shownText(p.arm) + "' is not valid UTF-8 text (or has control characters)",
          "save the file as UTF-8 and name arms in plain text"));
    p.compute_flops = number(row, compute, "compute_flops", source, true);
    p.val_loss = number(row, loss, "val_loss", source, true);
    if (params) p.params = number(row, *params, "params", source, true, true);
    if (tokens) p.tokens = number(row, *tokens, "tokens", source, true, true);
    if (depth) p.depth = number(row, *depth, "depth", source, true, true);
    p.source_line = row.line;
    out.points.push_back(p);
  }
  return out;
}

std::vector<SizePoint> parseSizesCsv(const std::string& text, const std::string& source) {
  const std::string expected = "params,tokens,loss[,compute_flops]";
  const CsvTable table = tokenize(text, source);
  const int params = requireColumn(table, source, {"params"}, expected);
  const int tokens = requireColumn(table, source, {"tokens"}, expected);
  const int loss = requireColumn(table, source, {"loss", "val_loss"}, expected);
  const auto compute = optionalColumn(table, "compute_flops");
  std::vector<SizePoint> out;
  for (const auto& row : table.rows) {
    SizePoint p;
    p.params = number(row, params, "params", source, true);
    p.tokens = number(row, tokens, "tokens", source, true);
    p.loss = number(row, loss, table.header[loss], source, true);
    p.compute_flops =
        compute ? number(row, *compute, "compute_flops", source, true) : 6.0 * p.params * p.tokens;
    out.push_back(p);
  }
  return out;
}

std::string readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(locatedMessage(path, 0, "", "cannot be opened", "check the path"));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ResultsTable readResultsCsv(const std::string& path) {
  return parseResultsCsv(readTextFile(path), path);
}

std::vector<SizePoint> readSizesCsv(const std::string& path) {
  return parseSizesCsv(readTextFile(path), path);
}

}  // namespace deepladder::fitting
