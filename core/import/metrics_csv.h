// A CSV of curves with named columns, as `deepladder import` reads it: one row per logged value,
// columns `run`, `step`, `metric`, `value` (any order), optionally `wall_time` (unix seconds), and
// any other column an option of the row's run (arm, size, seed, flops, params, tokens, lr, ...:
// imported_run.h says which ones the fits read). An option must have one value per run: a row that
// gives another is refused; an empty cell gives none. Metric names are mapped like TensorBoard
// tags (--tag, imported_run.h). Every bad cell is a UserError naming FILE:LINE and its column.
#pragma once

#include <string>
#include <vector>

#include "core/import/imported_run.h"

namespace deepladder::imports {

// True when the header line (the first line of `text`) names run, step, metric and value: the
// form this file reads, as opposed to a results CSV (arm, compute_flops, val_loss).
bool looksLikeMetricsCsv(const std::string& text);

std::vector<ImportedRun> parseMetricsCsv(const std::string& text, const std::string& source,
                                         const ImportSettings& settings);

// Splits one CSV line into cells ("..." quoting with "" for a quote; no newlines inside cells).
std::vector<std::string> splitCsvLine(const std::string& line);

}  // namespace deepladder::imports
