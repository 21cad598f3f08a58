// `deepladder suggest --db runs.db --ladder NAME [--target 1e26] [--budget FLOPS] [--json]`:
// which run to buy next. Candidates are the ladder's grid runs not yet run, one more seed of
// every rung run and the next larger sizes of its size rule; each is ranked by the expected
// narrowing of the target multiplier's interval per FLOP (fitting/suggest.h). The table shows
// cost (FLOPs, estimated hours on the ladder's resources), the interval now and expected after,
// and why. Wiring only.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "app/command_registry.h"
#include "core/errors.h"
#include "fitting/ladder_suggest.h"
#include "fitting/suggest_report.h"
#include "storage/database.h"
#include "storage/ladder_state.h"
#include "storage/result_points.h"

namespace deepladder::app {
namespace {

struct SuggestCommandOptions {
  std::string db_path = "runs.db";
  std::string ladder;
  bool json = false;
  int top = 15;
  fitting::SuggestOptions suggest = fitting::defaultSuggestOptions();
  ladder::CandidateOptions candidates;
};

int runSuggest(const SuggestCommandOptions& o) {
  if (access(o.db_path.c_str(), F_OK) != 0)
    throw UserError(o.db_path + ": no such database. Check --db");
  if (o.suggest.budget < 0) throw UserError("--budget: must be >= 0 FLOPs");
  if (o.suggest.draws < 1) throw UserError("--draws: must be at least 1");
  if (o.suggest.fit.bootstrap < 10) throw UserError("--bootstrap: must be at least 10");
  auto db = storage::Database::open(o.db_path, /*read_only=*/true);
  const storage::LadderState state = storage::loadLadderState(*db, o.ladder);
  const ResultsTable runs =
      storage::ladderResults(*db, state.id, o.db_path + " (ladder " + state.name + ")");
  const fitting::SuggestResult result =
      fitting::suggestLadderRuns(runs, state.spec, state.runs, o.candidates, o.suggest);
  if (o.json)
    std::printf("%s\n", fitting::suggestionsToJson(result).dump().c_str());
  else
    std::printf("%s", fitting::suggestionsMarkdown(result, o.top).c_str());
  return 0;
}

CommandRegistrar register_suggest("suggest", 12, [](CLI::App& cli) {
  auto o = std::make_shared<SuggestCommandOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "suggest",
      "Rank the runs a ladder could buy next (grid runs not yet run, one more seed of each rung, "
      "the next larger sizes, one sweep point past a rung whose best point is at an edge of its "
      "sweep) by the expected narrowing of the target multiplier's interval per "
      "FLOP; an extra seed counts for the seeds' measured share of the runs' scatter (nothing "
      "until rungs have been repeated)");
  cmd->add_option("--db", o->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--ladder", o->ladder, "Ladder name or hash")->required();
  cmd->add_option("--target", o->suggest.target, "Compute of the multiplier whose interval counts")
      ->capture_default_str();
  cmd->add_option("--budget", o->suggest.budget, "Leave out runs costing more FLOPs than this");
  cmd->add_option("--arm", o->suggest.arms,
                  "Count only this arm's interval (repeat for several; default: every arm)");
  cmd->add_option("--baseline", o->suggest.fit.baseline, "Baseline arm")->capture_default_str();
  cmd->add_option("--seed", o->suggest.seed, "Seed of the outcome draws")->capture_default_str();
  cmd->add_option("--draws", o->suggest.draws, "Plausible outcomes drawn per candidate")
      ->capture_default_str();
  cmd->add_option("--bootstrap", o->suggest.fit.bootstrap, "Bootstrap resamples of each refit")
      ->capture_default_str();
  cmd->add_option("--larger-sizes", o->candidates.larger_sizes,
                  "Next larger sizes per arm offered (depth ladders)")
      ->capture_default_str();
  cmd->add_option("--top", o->top, "Rows of the table (0 = all)")->capture_default_str();
  cmd->add_flag("--json", o->json, "Print every candidate as one JSON object");
  cmd->callback([o] { commandExitCode() = runSuggest(*o); });
});

}  // namespace
}  // namespace deepladder::app
