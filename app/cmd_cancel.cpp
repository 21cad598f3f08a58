// `deepladder cancel RUN_ID|LADDER|all --db runs.db`: stop a run, every unfinished run of a
// ladder, or every unfinished run in the database.
// A running scheduler sees the status change and stops the worker within a second.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/command_registry.h"
#include "core/errors.h"
#include "storage/database.h"
#include "storage/run_control.h"

namespace deepladder::app {
namespace {

struct CancelOptions {
  std::string target;
  std::string db_path = "runs.db";
};

bool isNumber(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

int runCancel(const CancelOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Pass --db");
  auto db = storage::Database::open(options.db_path);
  std::vector<storage::RunRecord> targets;
  if (options.target == "all") {
    for (const auto& s : db->listRuns()) targets.push_back(s.run);
  } else if (isNumber(options.target)) {
    auto run = db->run(std::stoll(options.target));
    if (!run) throw UserError("run " + options.target + " is not in " + options.db_path);
    targets.push_back(*run);
  } else {
    auto ladder = db->findLadder(options.target);
    if (!ladder)
      throw UserError("\"" + options.target + "\" is neither a run id nor a ladder in " +
                      options.db_path + ". See 'deepladder status'");
    for (const auto& s : db->listRuns(ladder)) targets.push_back(s.run);
  }
  const int cancelled = storage::cancelRuns(*db, targets);
  std::printf("cancelled %d run(s)\n", cancelled);
  return 0;
}

CommandRegistrar reg("cancel", 12, [](CLI::App& cli) {
  auto options = std::make_shared<CancelOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "cancel", "Cancel a run (by id), every unfinished run of a ladder, or \"all\"");
  cmd->add_option("target", options->target, "Run id, ladder name, or all")->required();
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->callback([options] { commandExitCode() = runCancel(*options); });
});

}  // namespace
}  // namespace deepladder::app
