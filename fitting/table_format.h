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

// The one number formatter of tables and messages: `digits` significant digits ("%.*g"), and
// `missing` for a value that is not finite ("n/a" in tables, "" in CSV; nullptr: written as it
// is, nan or inf).
std::string formatNumber(double v, int digits = 4, const char* missing = "n/a");
// A number in a message, as a stream writes it (6 significant digits; nan and inf as they are).
inline std::string messageNumber(double v) {
  return formatNumber(v, 6, nullptr);
}

// Text for a LaTeX table cell: _ & % # $ get a backslash (arm names, estimator notes).
std::string latexEscape(const std::string& s);

}  // namespace deepladder::fitting
