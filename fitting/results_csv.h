// Reading ladder results from CSV: the frontier form `arm,compute_flops,val_loss` (optional
// `params,tokens,depth`) and the Chinchilla form `params,tokens,loss` (optional `compute_flops`).
// Column order is free; the header names them. Every bad cell is a UserError naming
// FILE:LINE:COLUMN and the field. Validation of the data as a whole lives in frontier_fit.h.
#pragma once

#include <string>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

// Parses CSV text; `source` names it in messages.
ResultsTable parseResultsCsv(const std::string& text, const std::string& source);
ResultsTable readResultsCsv(const std::string& path);

// Chinchilla points: needs params, tokens and a loss column named `loss` or `val_loss`.
std::vector<SizePoint> parseSizesCsv(const std::string& text, const std::string& source);
std::vector<SizePoint> readSizesCsv(const std::string& path);

// Whole file as text; UserError when it cannot be opened.
std::string readTextFile(const std::string& path);

}  // namespace deepladder::fitting
