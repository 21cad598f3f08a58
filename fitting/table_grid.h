// A table as rows of cells, before it becomes text: what the scaling table's Markdown (`fit`,
// `export --format md`) and the workbench's fit table both show, so the two cannot drift apart.
// Each cell keeps its number beside its text, for sorting. Rendered here as Markdown (the pipe
// table `fit` prints) and as TSV (a spreadsheet's paste format).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct TableCell {
  TableCell(std::string text_ = {}, double value_ = kNaN, std::string note_ = {})
      : text(std::move(text_)), value(value_), note(std::move(note_)) {}
  std::string text;     // as printed ("0.1112 +- 0.004", "[1.2, 3.4]", "")
  double value = kNaN;  // the number it leads with, for sorting (NaN: text only)
  std::string note;     // why the cell says what it says ("" for nothing more; a tooltip)
};

struct TableGrid {
  std::vector<std::string> header;
  std::vector<std::vector<TableCell>> rows;  // each as long as the header
};

// "| h1 | h2 |\n|---|---|\n| a | b |\n": every cell as " text |", so an empty cell is "|  |".
std::string markdownTable(const TableGrid& grid);

// Header and rows, tab-separated, one line each; tabs and newlines in a cell become spaces.
std::string tsvTable(const TableGrid& grid);

}  // namespace deepladder::fitting
