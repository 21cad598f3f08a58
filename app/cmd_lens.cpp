// `deepladder lens RUN_ID --db runs.db [--eps 2.0]`: the logit-lens KL profile of one run at each
// eval step (entry l = block l, 0 = embedding; mean KL(p || q_l) in nats over validation tokens)
// and its computational depth d_lens (core/lens_depth.h), "none" when no block qualifies.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>

#include "app/command_registry.h"
#include "app/run_id_option.h"
#include "core/errors.h"
#include "core/lens_depth.h"
#include "storage/database.h"

namespace deepladder::app {
namespace {

struct LensOptions {
  int64_t run_id = 0;
  std::string db_path = "runs.db";
  double eps = 2.0;
};

int runLens(const LensOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Pass --db");
  if (!(options.eps >= 0)) throw UserError("--eps must be a non-negative number of nats");
  auto db = storage::Database::open(options.db_path, /*read_only=*/true);
  const auto run = db->run(options.run_id);
  if (!run)
    throw UserError("run " + std::to_string(options.run_id) + " is not in " + options.db_path +
                    ". See 'deepladder status' for run ids");
  std::map<int64_t, std::vector<double>> profiles;
  for (const auto& row : db->lens(options.run_id)) {
    auto& kl = profiles[row.step];
    if (static_cast<int64_t>(kl.size()) <= row.block) kl.resize(row.block + 1, 0.0);
    kl[row.block] = row.kl;
  }
  std::printf("run %lld (%s): logit-lens KL(p || q_l) per block, nats; eps %.3g\n",
              (long long)options.run_id, run->name.c_str(), options.eps);
  if (profiles.empty()) {
    std::printf("no lens profiles stored yet (they are written at every eval)\n");
    return 0;
  }
  for (const auto& [step, kl] : profiles) {
    const LensDepth depth = lensDepth(kl, options.eps);
    std::printf("step %lld: d_lens %s (peak at block %lld of %zu)\n ", (long long)step,
                depth.depth ? std::to_string(*depth.depth).c_str() : "none",
                (long long)depth.peak_block, kl.size() - 1);
    for (size_t l = 0; l < kl.size(); ++l) std::printf(" %zu:%.3f", l, kl[l]);
    std::printf("\n");
  }
  return 0;
}

CommandRegistrar register_lens("lens", 38, [](CLI::App& cli) {
  auto options = std::make_shared<LensOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "lens", "Logit-lens KL profile per eval step and computational depth d_lens of a run");
  cmd->add_option("run", options->run_id, "Run id (see 'deepladder status')")
      ->required()
      ->check(runIdCheck());
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--eps", options->eps, "KL threshold (nats) for d_lens")->capture_default_str();
  cmd->callback([options] { commandExitCode() = runLens(*options); });
});

}  // namespace
}  // namespace deepladder::app
