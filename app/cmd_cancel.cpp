// `deepladder cancel RUN_ID|LADDER|all --db runs.db`: stop a run, every unfinished run of a
// ladder, or every unfinished run in the database.
// A running scheduler sees the status change and stops the worker within a second; a run that
// ends before that is stored as it ended. Prints what became of each run, and exits 2 when a run
// named was not cancelled.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/run_id.h"
#include "core/run_status.h"
#include "storage/database.h"
#include "storage/run_control.h"

namespace deepladder::app {
namespace {

struct CancelOptions {
  std::string target;
  std::string db_path = "runs.db";
  double wait_s = 30;
};

int runCancel(const CancelOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Pass --db");
  auto db = storage::Database::open(options.db_path);
  std::vector<storage::RunRecord> targets;
  const bool by_id = looksLikeRunId(options.target);
  if (options.target == "all") {
    for (const auto& s : db->listRuns()) targets.push_back(s.run);
  } else if (by_id) {
    auto run = db->run(parseRunId(options.target));
    if (!run) throw UserError("run " + options.target + " is not in " + options.db_path);
    targets.push_back(*run);
  } else {
    auto ladder = db->findLadder(options.target);
    if (!ladder)
      throw UserError("\"" + options.target + "\" is neither a run id nor a ladder in " +
                      options.db_path + ". See 'deepladder status'");
    for (const auto& s : db->listRuns(ladder)) targets.push_back(s.run);
  }
  // One line per run asked for: what it is now, not what was intended.
  int cancelled = 0, missed = 0;
  using Kind = storage::CancelOutcome::Kind;
  for (const auto& o : storage::cancelAndSettle(*db, options.db_path, targets, options.wait_s)) {
    const long long id = o.before.id;
    const char* now = o.now ? toString(*o.now) : "(gone)";
    if (o.kind == Kind::kAlreadyEnded) {
      if (by_id) {
        std::printf("run %lld: %s already; nothing to cancel\n", id, now);
        ++missed;
      }
    } else if (o.kind == Kind::kEndedFirst) {
      std::printf("run %lld: not cancelled: it ended %s first\n", id, now);
      ++missed;
    } else if (o.kind == Kind::kEndedBeforeReached) {
      std::printf("run %lld: not cancelled: it ended %s before the cancellation reached it\n", id,
                  now);
      ++missed;
    } else {
      const std::string note = o.before.status != RunStatus::kRunning
                                   ? " (was " + std::string(toString(o.before.status)) + ")"
                               : o.worker_stopped ? std::string(" (its worker was stopped)")
                                                  : std::string(
                                                        " (its worker has not been seen to stop "
                                                        "yet; see 'deepladder status')");
      std::printf("run %lld: cancelled%s\n", id, note.c_str());
      ++cancelled;
    }
  }
  const std::string not_cancelled = missed ? ", " + std::to_string(missed) + " not" : "";
  std::printf("cancelled %d run(s)%s\n", cancelled, not_cancelled.c_str());
  return missed > 0 ? kExitBadInput : 0;
}

CommandRegistrar register_cancel("cancel", 12, [](CLI::App& cli) {
  auto options = std::make_shared<CancelOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "cancel", "Cancel a run (by id), every unfinished run of a ladder, or \"all\"");
  cmd->add_option("target", options->target, "Run id, ladder name, or all")->required();
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--wait", options->wait_s,
                  "Seconds to wait for a running run's scheduler to stop it and store its end")
      ->capture_default_str();
  cmd->callback([options] { commandExitCode() = runCancel(*options); });
});

}  // namespace
}  // namespace deepladder::app
