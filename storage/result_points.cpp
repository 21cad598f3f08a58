// Points for scaling fits (see result_points.h).
#include "storage/result_points.h"

#include "core/errors.h"

namespace deepladder::storage {

std::vector<ExternalPoint> resultPoints(Database& db, const std::string& db_label,
                                        const std::string& name) {
  std::vector<ExternalPoint> points;
  if (const auto id = db.findLadder(name)) {
    for (const auto& s : db.listRuns(*id)) {
      const RunRecord& r = s.run;
      if (r.status != "finished" || !r.final_loss) continue;
      ExternalPoint p;
      p.source = name;
      p.arm = r.arm;
      p.compute = r.flops;
      p.loss = *r.final_loss;
      if (r.params > 0) p.params = static_cast<double>(r.params);
      if (r.tokens > 0) p.tokens = static_cast<double>(r.tokens);
      points.push_back(p);
    }
    if (points.empty())
      throw UserError("ladder \"" + name + "\" in " + db_label +
                      " has no finished runs with a final loss yet. Run it first");
    return points;
  }
  points = db.externalPoints(name);
  if (points.empty())
    throw UserError("no ladder or imported source named \"" + name + "\" in " + db_label +
                    ". See `deepladder status --db " + db_label + "`");
  return points;
}

}  // namespace deepladder::storage
