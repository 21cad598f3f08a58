// Inputs of the fitting commands (see fit_inputs.h).
#include "app/fit_inputs.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/errors.h"
#include "fitting/ladder_fit.h"
#include "storage/database.h"
#include "storage/fit_cache.h"
#include "storage/squaring_points.h"

namespace deepladder::app {

void warnArmsWithoutFit(const fitting::FrontierResult& result) {
  for (const auto& f : result.arms)
    if (!f.no_fit.empty()) std::fprintf(stderr, "deepladder: warning: %s\n", f.no_fit.c_str());
}

std::vector<double> parseComputeList(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v))
      throw UserError("--at: '" + item + "' is not a positive compute. Give e.g. 1e20,1e22");
    out.push_back(v);
  }
  return out;
}

fitting::FrontierResult fitLadderCached(storage::Database& db, const std::string& ladder,
                                        const fitting::ResultsTable& table,
                                        const fitting::FrontierOptions& options, bool read_only) {
  storage::SqliteFitCache cache(db, db.findLadder(ladder), read_only);
  fitting::LadderFitter fitter(&cache, ladder);
  return fitter.fit(table, options, /*lenient=*/false);
}

bool isSquaringLadder(storage::Database& db, const std::string& ladder) {
  return storage::isSquaringLadder(db, ladder);
}

fitting::SquaringLadderSummary readSquaringSummary(storage::Database& db,
                                                   const std::string& db_path,
                                                   const std::string& ladder, double c_ref) {
  std::vector<fitting::SquaringRunPoint> runs;
  for (const storage::SquaringPoint& p : storage::squaringPoints(db, db_path, ladder))
    runs.push_back(
        {p.arm, p.run_id, p.compute, p.max_t_seen, p.max_t_unseen, p.ood_exact, p.test_exact});
  return fitting::summarizeSquaringLadder(std::move(runs), c_ref);
}

}  // namespace deepladder::app
