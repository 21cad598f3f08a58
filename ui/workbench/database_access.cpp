// Opening the database for the workbench, with user-facing failure descriptions.
#include "ui/workbench/database_access.h"

#include <QComboBox>
#include <QFileInfo>

#include "core/errors.h"
#include "storage/database.h"
#include "storage/run_plot_data.h"

namespace deepladder::ui {

std::unique_ptr<storage::Database> openExistingDatabase(const QString& path, bool read_only) {
  if (!QFileInfo::exists(path))
    throw UserError(path.toStdString() + ": no such file. Pick an existing runs.db (File > Open)");
  auto db = storage::Database::open(path.toStdString(), read_only);
  db->queryInt("SELECT count(*) FROM runs");  // touches the pages: a corrupt file fails here
  return db;
}

DatabaseProblem describeOpenFailure(const QString& path, const QString& error) {
  const QString lower = error.toLower();
  DatabaseProblem p;
  p.message = error;
  if (!QFileInfo::exists(path)) {
    p.title = QStringLiteral("Database not found");
    p.message = QStringLiteral(
                    "%1 does not exist.\n\nOpen an existing database with File > Open, "
                    "or create one with `deepladder run LADDER.toml --db %1`.")
                    .arg(path);
  } else if (lower.contains(QLatin1String("locked")) || lower.contains(QLatin1String("busy"))) {
    p.title = QStringLiteral("Database is locked");
    p.message += QStringLiteral(
        "\n\nAnother program holds a write lock on it. Wait for it to "
        "finish, or open the database read-only.");
  } else if (lower.contains(QLatin1String("newer"))) {
    p.title = QStringLiteral("Database is from a newer deepladder");
    p.message +=
        QStringLiteral("\n\nUpdate deepladder to open it; this version will not change it.");
  } else if (lower.contains(QLatin1String("not a database")) ||
             lower.contains(QLatin1String("malformed")) ||
             lower.contains(QLatin1String("corrupt")) || lower.contains(QLatin1String("damaged"))) {
    p.title = QStringLiteral("Database is damaged or not a deepladder database");
    p.message += QStringLiteral(
        "\n\nCheck the path. A damaged file can sometimes be saved with "
        "`sqlite3 FILE .recover`.");
  } else {
    p.title = QStringLiteral("Cannot open the database");
  }
  return p;
}

std::unique_ptr<storage::Database> tryOpenDatabase(const QString& path, bool read_only,
                                                   DatabaseProblem* problem) {
  try {
    return openExistingDatabase(path, read_only);
  } catch (const std::exception& e) {
    if (problem) *problem = describeOpenFailure(path, QString::fromUtf8(e.what()));
    return nullptr;
  }
}

std::vector<RunChoice> runChoices(storage::Database& db, const std::string& table) {
  std::vector<RunChoice> choices;
  if (db.queryInt("SELECT count(*) FROM " + table) == 0) return choices;
  for (const auto& s : db.listRuns())
    if (db.queryInt("SELECT EXISTS(SELECT 1 FROM " + table +
                    " WHERE run_id = " + std::to_string(s.run.id) + ")"))
      choices.push_back({s.run.id, QString::fromStdString(storage::runLabel(db, s.run.id))});
  return choices;
}

std::optional<int64_t> pickRun(const std::vector<RunChoice>& choices, int64_t current) {
  for (const auto& c : choices)
    if (c.id == current) return current;
  if (choices.empty()) return std::nullopt;
  return choices.front().id;
}

bool fillRunPicker(QComboBox& picker, const std::vector<RunChoice>& choices) {
  const qlonglong current = picker.currentData().toLongLong();
  picker.clear();
  for (const auto& c : choices) picker.addItem(c.label, static_cast<qlonglong>(c.id));
  if (picker.count() == 0) return false;
  const int keep = picker.findData(current);
  picker.setCurrentIndex(keep >= 0 ? keep : 0);
  return true;
}

}  // namespace deepladder::ui
