// How the workbench opens the database: never creates one (a typo must not leave an empty
// file behind), and turns every way opening can fail into a title and a message for a dialog:
// missing, locked, written by a newer deepladder, not a database / corrupt.
#pragma once

#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QComboBox;

namespace deepladder::storage {
class Database;
}

namespace deepladder::ui {

struct DatabaseProblem {
  QString title;    // e.g. "Database is locked"
  QString message;  // storage's message plus what to do
};

// Opens an existing database (read-only when `read_only`). Throws DatabaseOpenError.
std::unique_ptr<storage::Database> openExistingDatabase(const QString& path, bool read_only);

// What went wrong, for a dialog, from the exception text of a failed open.
DatabaseProblem describeOpenFailure(const QString& path, const QString& error);

// Opens and checks `path`; on failure returns the problem (and no database).
std::unique_ptr<storage::Database> tryOpenDatabase(const QString& path, bool read_only,
                                                   DatabaseProblem* problem);

// A run a picker offers: its id and label (storage::runLabel).
struct RunChoice {
  int64_t id = 0;
  QString label;
};

// The runs that have rows in `table` ("lens", "evals"), in listRuns order. Queries: call it off
// the GUI thread.
std::vector<RunChoice> runChoices(storage::Database& db, const std::string& table);

// The choice to show: `current` when it is listed, else the first; nullopt when none is.
std::optional<int64_t> pickRun(const std::vector<RunChoice>& choices, int64_t current);

// Refills a run picker with `choices`, keeping the current choice when it is still listed (no
// database access). Returns false when there is none (picker empty).
bool fillRunPicker(QComboBox& picker, const std::vector<RunChoice>& choices);

}  // namespace deepladder::ui
