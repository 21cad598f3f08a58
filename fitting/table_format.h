// The four export formats every deepladder table comes in (Markdown, CSV, LaTeX, JSON) and the
// one place that maps a --format value to the table's renderer, so every table refuses an unknown
// format with the same message.
#pragma once

#include <functional>
#include <string>

namespace deepladder::fitting {

struct TableRenderers {
  std::function<std::string()> markdown, csv, latex, json;
};

// "md", "csv", "tex" or "json"; anything else is a UserError naming the choices.
std::string renderTable(const std::string& format, const TableRenderers& renderers);

// Text for a LaTeX table cell: _ & % # $ get a backslash (arm names, estimator notes).
std::string latexEscape(const std::string& s);

}  // namespace deepladder::fitting
