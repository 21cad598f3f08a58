// Format dispatch for the exported tables (see table_format.h).
#include "fitting/table_format.h"

#include <cmath>
#include <cstdio>

#include "core/errors.h"

namespace deepladder::fitting {

std::string renderTable(const std::string& format, const TableRenderers& renderers) {
  if (format == "md") return renderers.markdown();
  if (format == "csv") return renderers.csv();
  if (format == "tex") return renderers.latex();
  if (format == "json") return renderers.json();
  throw UserError("--format: unknown format '" + format + "'. Use md, csv, tex or json");
}

std::string formatNumber(double v, int digits, const char* missing) {
  if (!std::isfinite(v) && missing) return missing;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string latexEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '&' || c == '%' || c == '#' || c == '$') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace deepladder::fitting
