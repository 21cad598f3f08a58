// The database and work directories an output may not replace (see protected_outputs.h).
#include "storage/protected_outputs.h"

#include <filesystem>
#include <optional>
#include <set>

#include "storage/database.h"
#include "storage/ladder_queue.h"
#include "storage/work_root.h"

namespace deepladder::storage {

namespace fs = std::filesystem;

namespace {

// The folder above `run_dir` that holds the work root's owner file, if any.
std::optional<fs::path> workRootAbove(const fs::path& run_dir) {
  std::error_code ec;
  for (fs::path up = run_dir.parent_path(); !up.empty(); up = up.parent_path()) {
    if (fs::exists(up / kWorkRootOwnerFile, ec)) return up;
    if (up == up.parent_path()) break;
  }
  return std::nullopt;
}

}  // namespace

ProtectedPaths databaseInputs(Database& db, const std::string& db_path) {
  ProtectedPaths inputs;
  inputs.addDatabase(db_path);
  std::set<fs::path> directories = {fs::path(defaultWorkRoot(db_path))};
  std::set<fs::path> parents_seen;
  for (const RunSummary& summary : db.listRuns()) {
    if (summary.run.workdir.empty()) continue;
    const fs::path run_dir = fs::absolute(summary.run.workdir).lexically_normal();
    if (!parents_seen.insert(run_dir.parent_path()).second) continue;  // same ladder folder
    if (const auto root = workRootAbove(run_dir)) {
      directories.insert(*root);
    } else {
      directories.insert(run_dir.parent_path());
    }
  }
  for (const fs::path& dir : directories)
    inputs.addDirectory(dir.string(), "a work directory of " + db_path);
  return inputs;
}

ProtectedPaths databaseInputs(const std::string& db_path) {
  if (db_path.empty()) return {};
  std::error_code ec;
  if (fs::is_regular_file(db_path, ec)) {
    try {
      auto db = Database::open(db_path, /*read_only=*/true);
      return databaseInputs(*db, db_path);
    } catch (const std::exception&) {
      // Not a database deepladder can read: the command says so itself; protect the file anyway.
    }
  }
  ProtectedPaths inputs;
  inputs.addDatabase(db_path);
  inputs.addDirectory(defaultWorkRoot(db_path), "a work directory of " + db_path);
  return inputs;
}

}  // namespace deepladder::storage
