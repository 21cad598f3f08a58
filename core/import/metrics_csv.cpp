// The CSV of curves with named columns (see metrics_csv.h).
#include "core/import/metrics_csv.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>

#include "core/errors.h"
#include "core/import/tb_logdir.h"
#include "core/safe_text.h"

namespace deepladder::imports {
namespace {

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

constexpr const char* kRequired[] = {"run", "step", "metric", "value"};

// The text without a UTF-8 byte order mark (spreadsheets write one).
std::string withoutBom(const std::string& text) {
  return text.rfind("\xEF\xBB\xBF", 0) == 0 ? text.substr(3) : text;
}

}  // namespace

std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(trimmed(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(trimmed(cell));
  return cells;
}

bool looksLikeMetricsCsv(const std::string& text) {
  const std::string stripped = withoutBom(text.substr(0, text.find('\n')));
  const std::string& header = stripped;
  const std::vector<std::string> cells = splitCsvLine(header);
  for (const char* name : kRequired)
    if (std::find(cells.begin(), cells.end(), name) == cells.end()) return false;
  return true;
}

std::vector<ImportedRun> parseMetricsCsv(const std::string& text, const std::string& source,
                                         const ImportSettings& settings) {
  std::istringstream in(withoutBom(text));
  std::string line;
  long line_number = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++line_number;
    if (trimmed(line).empty()) continue;
    if (!isValidUtf8(line))
      throw UserError(locatedMessage(source, line_number, "header", "not valid UTF-8 text",
                                     "Save the file as UTF-8"));
    header = splitCsvLine(line);
  }
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i].empty())
      throw UserError(locatedMessage(source, line_number, "column " + std::to_string(i + 1),
                                     "the header names no column here",
                                     "Name every column (run,step,metric,value,OPTIONS...)"));
    if (!column.emplace(header[i], i).second)
      throw UserError(locatedMessage(source, line_number, header[i], "column named twice"));
  }
  for (const char* name : kRequired)
    if (!column.count(name))
      throw UserError(locatedMessage(source, line_number, name, "no such column in the header",
                                     "A curves CSV has the columns run,step,metric,value (plus "
                                     "wall_time and option columns)"));
  const auto wall_it = column.find("wall_time");
  const size_t wall_column = wall_it == column.end() ? std::string::npos : wall_it->second;
  std::vector<size_t> option_columns;
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] != "run" && header[i] != "step" && header[i] != "metric" &&
        header[i] != "value" && header[i] != "wall_time")
      option_columns.push_back(i);

  std::map<std::string, ImportedRun> runs;
  std::map<std::pair<std::string, std::string>, long> option_line;  // (run, option) -> line
  std::map<std::string, std::string> keys;                          // metric -> key
  while (std::getline(in, line)) {
    ++line_number;
    if (trimmed(line).empty()) continue;
    if (!isValidUtf8(line))
      throw UserError(locatedMessage(source, line_number, "row", "not valid UTF-8 text",
                                     "Save the file as UTF-8"));
    const std::vector<std::string> cells = splitCsvLine(line);
    if (cells.size() != header.size())
      throw UserError(locatedMessage(
          source, line_number, "row",
          std::to_string(cells.size()) + " cells, the header has " + std::to_string(header.size()),
          "Quote cells that hold a comma"));
    const std::string& name = cells[column["run"]];
    if (name.empty()) throw UserError(locatedMessage(source, line_number, "run", "empty run name"));
    auto [it, added] = runs.try_emplace(name);
    ImportedRun& run = it->second;
    if (added) {
      run.name = runNameOfPath(name);
      run.origin = source + ":" + std::to_string(line_number);
    }
    auto number = [&](const char* col, bool integer) {
      const std::string& cell = cells[column[col]];
      char* end = nullptr;
      errno = 0;
      const double v =
          integer ? double(std::strtoll(cell.c_str(), &end, 10)) : std::strtod(cell.c_str(), &end);
      if (cell.empty() || !end || *end != '\0' || errno == ERANGE)
        throw UserError(locatedMessage(
            source, line_number, col,
            "\"" + shownText(cell) + "\" is not " + (integer ? "an integer" : "a number")));
      return v;
    };
    const int64_t step = static_cast<int64_t>(number("step", true));
    const double value = number("value", false);
    double wall = 0;
    if (wall_column != std::string::npos && !cells[wall_column].empty())
      wall = number("wall_time", false);
    const std::string& metric = cells[column["metric"]];
    auto known = keys.find(metric);
    if (known == keys.end()) known = keys.emplace(metric, metricKeyOfTag(settings, metric)).first;
    if (!known->second.empty()) run.curves[known->second].push_back({step, value, wall});
    for (size_t i : option_columns) {
      if (cells[i].empty()) continue;
      const nlohmann::json v = optionValueOfText(cells[i]);
      const auto [where, first] = option_line.emplace(std::make_pair(name, header[i]), line_number);
      if (first) {
        run.options[header[i]] = v;
      } else if (run.options[header[i]] != v) {
        throw UserError(locatedMessage(
            source, line_number, header[i],
            "run \"" + name + "\" has " + run.options[header[i]].dump() + " on line " +
                std::to_string(where->second) + " and " + v.dump() + " here",
            "An option column holds one value per run: fix the cell, or leave it empty"));
      }
    }
  }
  if (runs.empty()) throw UserError(source + ": no rows under the header. Nothing to import");
  std::vector<ImportedRun> out;
  for (auto& [name, run] : runs) {
    keepLastPointPerStep(run);
    run.options = unflattenOptions(run.options);
    mergeOptions(run.options, settings.set_options);
    out.push_back(std::move(run));
  }
  checkImportedRunNames(out);
  return out;
}

}  // namespace deepladder::imports
