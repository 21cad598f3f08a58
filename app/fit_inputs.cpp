// Inputs of the fitting commands (see fit_inputs.h).
#include "app/fit_inputs.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/errors.h"
#include "storage/database.h"

namespace deepladder::app {

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

// Finished runs of a ladder (arm, FLOPs, final loss, params, tokens), or the points of an
// imported CSV stored under that name (`deepladder import`).
fitting::ResultsTable readFromDatabase(storage::Database& db, const std::string& db_path,
                                       const std::string& ladder) {
  fitting::ResultsTable table;
  table.source = db_path + " (ladder " + ladder + ")";
  if (const auto id = db.findLadder(ladder)) {
    for (const auto& s : db.listRuns(*id)) {
      const auto& r = s.run;
      if (r.status != "finished" || !r.final_loss) continue;
      fitting::RunPoint p;
      p.arm = r.arm;
      p.compute_flops = r.flops;
      p.val_loss = *r.final_loss;
      if (r.params > 0) p.params = static_cast<double>(r.params);
      if (r.tokens > 0) p.tokens = static_cast<double>(r.tokens);
      table.points.push_back(p);
    }
    if (table.points.empty())
      throw UserError("ladder \"" + ladder + "\" in " + db_path +
                      " has no finished runs with a final loss yet. Run it first");
    return table;
  }
  for (const auto& e : db.externalPoints(ladder)) {
    fitting::RunPoint p;
    p.arm = e.arm;
    p.compute_flops = e.compute;
    p.val_loss = e.loss;
    if (e.params) p.params = *e.params;
    if (e.tokens) p.tokens = *e.tokens;
    if (e.depth) p.depth = *e.depth;
    table.points.push_back(p);
  }
  if (table.points.empty())
    throw UserError("no ladder or imported source named \"" + ladder + "\" in " + db_path +
                    ". See `deepladder status --db " + db_path + "`");
  return table;
}

}  // namespace deepladder::app
