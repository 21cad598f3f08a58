// The scaling table of a frontier fit, as text: Markdown, CSV, LaTeX (booktabs) or JSON.
// Per arm: gamma +- se with its bootstrap interval, A, E, the projected multipliers with
// intervals and the per-decade factor; then the measured multipliers per baseline rung.
#pragma once

#include <string>

#include "fitting/fit_types.h"
#include "fitting/table_grid.h"

namespace deepladder::fitting {

// The main table of scalingTableMarkdown, one row per arm (gamma +- se, its bootstrap and t
// intervals, A, E, the form's extra parameters, M@each --at with its interval, per decade,
// flags); each arm's diagnostics and no-fit reason are the notes of its name and flags cells.
// The workbench's fit table shows these rows.
TableGrid scalingTableGrid(const FrontierResult& result);

std::string scalingTableMarkdown(const FrontierResult& result);

// Tidy CSV, one value a row: arm,quantity,compute,value,se,ci_lo,ci_hi. Quantities: E, A, gamma,
// per_decade, measured_multiplier, projected_multiplier (compute set for the multipliers).
// Empty cells where a value does not apply or is undefined.
std::string scalingTableCsv(const FrontierResult& result);

// A booktabs tabular (needs \usepackage{booktabs}); arm names escaped.
std::string scalingTableLatex(const FrontierResult& result);

// frontierToJson(result), pretty-printed.
std::string scalingTableJson(const FrontierResult& result);

// "md" | "csv" | "tex" | "json"; UserError for anything else.
std::string scalingTable(const FrontierResult& result, const std::string& format);

}  // namespace deepladder::fitting
