// `deepladder export-tb RUN|LADDER --db runs.db --out DIR`: a run's, or every run of a ladder's,
// curves as TensorBoard event files, one subdirectory per run (its name), so a ladder can be
// looked at with `tensorboard --logdir DIR`. Each file carries the run's options and facts as
// hparams (the hparams plugin's SessionStartInfo) and every metric row (core/tensorboard/
// tb_run_writer.h); `deepladder import DIR` reads the same rows back.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/import/imported_run.h"
#include "core/names.h"
#include "core/safe_file.h"
#include "core/safe_text.h"
#include "core/tensorboard/tb_run_writer.h"
#include "storage/database.h"

namespace deepladder::app {
namespace {
namespace fs = std::filesystem;

struct ExportTbOptions {
  std::string target;
  std::string db_path = "runs.db";
  std::string out;
};

// The runs `target` names: a ladder (name or hash), a run id or a run name.
std::vector<storage::RunSummary> targetRuns(storage::Database& db, const std::string& target,
                                            const std::string& db_path) {
  if (const auto ladder = db.findLadder(target)) return db.listRuns(*ladder);
  std::vector<storage::RunSummary> all = db.listRuns(), chosen;
  for (auto& s : all)
    if (s.run.name == target || std::to_string(s.run.id) == target) chosen.push_back(s);
  if (chosen.empty())
    throw UserError("no ladder, run id or run name \"" + shownText(target) + "\" in " + db_path +
                    ". See `deepladder status --db " + db_path + "`");
  if (chosen.size() > 1)
    throw UserError("run name \"" + target + "\" names " + std::to_string(chosen.size()) +
                    " runs in " + db_path + " (of different ladders): give a run id or a ladder");
  return chosen;
}

// The run's name, or run-ID for a name that cannot be a directory (stored before names were
// checked).
std::string runDirectoryName(const storage::RunRecord& run) {
  if (!nameProblem(run.name, kMaxRunNameLength)) return run.name;
  return "run-" + std::to_string(run.id);
}

// The run's options (flattened) and the facts `import` reads back (imported_run.h).
nlohmann::json hparamsOf(const storage::RunRecord& run) {
  nlohmann::json config = nlohmann::json::parse(run.config_json, nullptr, false);
  nlohmann::json h =
      imports::flattenOptions(config.is_object() ? config : nlohmann::json::object());
  h["arm"] = run.arm;
  h["size"] = run.size;
  h["seed"] = run.seed;
  if (run.flops > 0) h["flops"] = run.flops;
  if (run.params > 0) h["params"] = run.params;
  if (run.tokens > 0) h["tokens"] = run.tokens;
  if (run.final_loss) h["final_loss"] = *run.final_loss;
  h["status"] = run.status;
  return h;
}

int runExportTb(const ExportTbOptions& o) {
  if (!fs::exists(o.db_path))
    throw UserError(o.db_path + ": no such database. Give the one the ladder ran with (--db)");
  auto db = storage::Database::open(o.db_path, /*read_only=*/true);
  const std::vector<storage::RunSummary> runs = targetRuns(*db, o.target, o.db_path);
  std::error_code ec;
  if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec))
    throw UserError("--out " + o.out + ": exists and is not a directory. Give a directory");
  // Refuse before writing anything: a run directory that already holds event files would show
  // its curves twice in TensorBoard.
  for (const auto& s : runs) {
    const fs::path dir = fs::path(o.out) / runDirectoryName(s.run);
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0)
        throw UserError("--out " + o.out + ": " + dir.string() + " already holds event files (" +
                        entry.path().filename().string() +
                        "); TensorBoard would show both. Export to a new directory or remove "
                        "them first");
  }
  size_t scalars = 0;
  for (const auto& s : runs) {
    const storage::RunRecord& run = s.run;
    std::vector<tensorboard::NamedCurve> curves;
    for (const std::string& key : db->metricKeys(run.id)) {
      curves.emplace_back(key, db->readMetric(run.id, key));
      scalars += curves.back().second.size();
    }
    double start = run.started;
    for (const auto& [key, points] : curves)
      for (const auto& p : points)
        if (std::isfinite(p.wall) && p.wall > 0 && (start <= 0 || p.wall < start)) start = p.wall;
    const fs::path dir = fs::path(o.out) / runDirectoryName(run);
    fs::create_directories(dir, ec);
    if (ec) throw UserError("--out: cannot create " + dir.string() + " (" + ec.message() + ")");
    requireRealDirectory(dir.string(), "--out's run directory");
    writeFileAtomically((dir / tensorboard::eventFileName(start)).string(),
                        tensorboard::encodeRunEventFile(hparamsOf(run), curves, start),
                        "the event file");
  }
  std::printf(
      "wrote %zu run(s) and %zu scalars to %s\nlook at them with: tensorboard --logdir %s\n",
      runs.size(), scalars, o.out.c_str(), o.out.c_str());
  return 0;
}

CommandRegistrar register_export_tb("export-tb", 53, [](CLI::App& cli) {
  auto o = std::make_shared<ExportTbOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "export-tb",
      "Write a run's or a ladder's curves as TensorBoard event files (one subdirectory per run, "
      "options as hparams)");
  cmd->add_option("target", o->target, "Ladder (name or hash), run id or run name")->required();
  cmd->add_option("--db", o->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--out", o->out, "Log directory to write (created if absent)")->required();
  cmd->callback([o] { commandExitCode() = runExportTb(*o); });
});

}  // namespace
}  // namespace deepladder::app
