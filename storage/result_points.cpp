// The results reader for fits (see result_points.h).
#include "storage/result_points.h"

#include <limits>

#include "core/errors.h"
#include "core/ladder/sweep.h"

namespace deepladder::storage {

ResultsTable ladderResults(Database& db, int64_t ladder_id, const std::string& source) {
  ResultsTable table;
  table.source = source;
  const auto point = [](const RunRecord& r) {
    RunPoint p;
    p.arm = r.arm;
    p.compute_flops = r.flops;
    p.val_loss = r.final_loss ? *r.final_loss : std::numeric_limits<double>::quiet_NaN();
    if (r.params > 0) p.params = static_cast<double>(r.params);
    if (r.tokens > 0) p.tokens = static_cast<double>(r.tokens);
    p.run_id = r.id;
    p.size = r.size;
    p.seed = r.seed;
    p.finished = r.finished;
    p.sweep = ladder::sweepLabelOfRunName(r.name, r.arm, r.size, r.seed);
    return p;
  };
  for (const RunRecord& r : db.finishedRuns(ladder_id)) table.points.push_back(point(r));
  for (const RunRecord& r : db.stoppedRuns(ladder_id)) table.stopped.push_back(point(r));
  return table;
}

ResultsTable readResults(Database& db, const std::string& db_label, const std::string& name) {
  const std::string source = db_label + " (ladder " + name + ")";
  if (const auto id = db.findLadder(name)) {
    // A database from before `import` refused a trained ladder's name may hold both: never
    // read one of them silently.
    if (!db.externalPoints(name).empty())
      throw UserError("\"" + name + "\" in " + db_label +
                      " names both a trained ladder and an imported source, and a fit reads one "
                      "set of points. Name the ladder by its hash (see `deepladder status --db " +
                      db_label + "`), or import the CSV again under another --name");
    ResultsTable table = ladderResults(db, *id, source);
    if (table.points.empty())
      throw UserError("ladder \"" + name + "\" in " + db_label +
                      " has no finished runs with a final loss yet. Run it first");
    return table;
  }
  ResultsTable table;
  table.source = source;
  for (const ExternalPoint& e : db.externalPoints(name)) {
    RunPoint p;
    p.arm = e.arm;
    p.compute_flops = e.compute;
    p.val_loss = e.loss;
    if (e.params) p.params = *e.params;
    if (e.tokens) p.tokens = *e.tokens;
    if (e.depth) p.depth = *e.depth;
    table.points.push_back(std::move(p));
  }
  if (table.points.empty())
    throw UserError("no ladder or imported source named \"" + name + "\" in " + db_label +
                    ". See `deepladder status --db " + db_label + "`");
  return table;
}

}  // namespace deepladder::storage
