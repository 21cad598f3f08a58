// The table of a squaring ladder (fitting/squaring_trend.h), as text: Markdown, CSV, LaTeX
// (booktabs) or JSON. Per arm: each finished run's compute, Max T on seen and on unseen moduli,
// OOD and held-out exact match, whether it is admissible under the benchmark's rules (and if not,
// which options make it so); then the fits of OOD exact match and of depth rungs cleared
// against log10(C / C0) (intercept a, slope b per decade with standard errors, R^2, and the
// compute where the OOD line reaches 1).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fitting/squaring_trend.h"

namespace deepladder::fitting {

std::string squaringTableMarkdown(const SquaringLadderSummary& summary);

// Tidy CSV, one value a row: arm,run_id,quantity,compute,value,se. Run rows (quantity max_t_seen,
// max_t_unseen, ood_exact, test_exact, admissible: 1 or 0) carry their compute; fit rows
// (ood_exact.a, ood_exact.b, ood_exact.r2, ood_exact.compute_at_1, rungs_seen.a, rungs_seen.b,
// rungs_seen.r2) leave run_id and compute empty. Empty cells where a value is undefined.
std::string squaringTableCsv(const SquaringLadderSummary& summary);

// Two booktabs tabulars (runs, fits); needs \usepackage{booktabs}.
std::string squaringTableLatex(const SquaringLadderSummary& summary);

nlohmann::json squaringToJson(const SquaringLadderSummary& summary);
std::string squaringTableJson(const SquaringLadderSummary& summary);  // pretty-printed

// "md" | "csv" | "tex" | "json"; UserError for anything else.
std::string squaringTable(const SquaringLadderSummary& summary, const std::string& format);

}  // namespace deepladder::fitting
