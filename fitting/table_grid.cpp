// Tables as rows of cells (see table_grid.h).
#include "fitting/table_grid.h"

#include <algorithm>

namespace deepladder::fitting {
namespace {

std::string oneLine(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return text;
}

}  // namespace

std::string markdownTable(const TableGrid& grid) {
  std::string out = "|";
  for (const auto& h : grid.header) out += " " + h + " |";
  out += "\n|";
  for (size_t i = 0; i < grid.header.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : grid.rows) {
    out += "|";
    for (const auto& cell : row) out += " " + cell.text + " |";
    out += "\n";
  }
  return out;
}

std::string tsvTable(const TableGrid& grid) {
  std::string out;
  for (size_t i = 0; i < grid.header.size(); ++i) out += (i ? "\t" : "") + oneLine(grid.header[i]);
  out += "\n";
  for (const auto& row : grid.rows) {
    for (size_t i = 0; i < row.size(); ++i) out += (i ? "\t" : "") + oneLine(row[i].text);
    out += "\n";
  }
  return out;
}

}  // namespace deepladder::fitting
