// Storing imported ladders (see imported_ladder.h).
#include "storage/imported_ladder.h"

#include "core/errors.h"
#include "core/run_status.h"
#include "core/safe_text.h"
#include "core/sha256.h"

namespace deepladder::storage {

bool isImportedLadderSpec(const std::string& spec) {
  return spec.rfind(kImportedSpecMarker, 0) == 0;
}

ImportedLadderSummary storeImportedLadder(Database& db, const std::string& name,
                                          const std::string& origin,
                                          const std::vector<imports::ImportedRun>& runs,
                                          const std::vector<imports::ImportedRunFacts>& facts) {
  ImportedLadderSummary summary;
  Transaction transaction(db);
  for (const LadderRecord& existing : db.laddersNamed(name)) {
    if (!isImportedLadderSpec(existing.spec))
      throw UserError("ladder \"" + name + "\" in " + db.path() +
                      " is one deepladder ran; an import does not replace it. Import under "
                      "another name (--name)");
    db.execute("DELETE FROM ladders WHERE id = " + std::to_string(existing.id));
    summary.replaced = true;
  }
  if (!db.externalPoints(name).empty()) {
    db.replaceExternalPoints(name, {});
    summary.replaced = true;
  }
  const std::string spec = std::string(kImportedSpecMarker) + " " + std::to_string(runs.size()) +
                           " runs trained elsewhere, imported from " + origin +
                           "\n# No grid to plan from: `suggest` and adaptive runs need a ladder "
                           "file.\n";
  const std::string hash_input = "deepladder import\n" + name;
  summary.ladder_id =
      db.upsertLadder(name, spec, "imported-" + sha256Hex(hash_input.data(), hash_input.size()));

  std::vector<MetricRow> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    const imports::ImportedRun& r = runs[i];
    const imports::ImportedRunFacts& f = facts[i];
    RunRecord run;
    run.ladder_id = summary.ladder_id;
    run.name = r.name;
    run.arm = f.arm;
    run.size = f.size;
    run.seed = f.seed;
    run.config_json = dumpJson(r.options);  // invalid UTF-8 replaced, never thrown
    run.config_hash = sha256Hex(run.config_json.data(), run.config_json.size()).substr(0, 16);
    run.status = RunStatus::kFinished;
    run.device = "imported";
    run.params = f.params;
    run.flops_per_token = f.tokens > 0 ? f.flops / double(f.tokens) : 0;
    run.step = f.last_step;
    run.tokens = f.tokens;
    run.flops = f.flops;
    run.final_loss = f.final_loss;
    run.started = f.started;
    run.heartbeat = run.finished = f.finished;
    run.plan.steps = f.last_step;
    run.plan.tokens = f.tokens;
    run.plan.flops = f.flops;
    run.plan.params = f.params;
    run.plan.flops_per_token = run.flops_per_token;
    const int64_t run_id = db.insertRun(run);
    rows.clear();
    for (const auto& [key, points] : r.curves)
      for (const auto& p : points) {
        const auto [tokens, flops] = imports::rowTokensAndFlops(r, f, p.step);
        rows.push_back(MetricRow{run_id, key, p.step, tokens, flops, p.value, p.wall});
      }
    db.writeMetrics(rows);  // a savepoint inside this transaction
    summary.rows += rows.size();
    ++summary.runs;
  }
  transaction.commit();
  return summary;
}

}  // namespace deepladder::storage
