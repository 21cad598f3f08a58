// How the workbench opens the database: never creates one (a typo must not leave an empty
// file behind), and turns every way opening can fail into a title and a message for a dialog:
// missing, locked, written by a newer deepladder, not a database / corrupt.
#pragma once

#include <QString>
#include <string>

class QComboBox;
#include <memory>

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

// Refills a run picker with the runs that have rows in `table` ("lens", "evals"), keeping the
// current choice when it is still listed. Returns false when no run has any (picker empty).
bool fillRunPicker(QComboBox& picker, storage::Database& db, const std::string& table);

}  // namespace deepladder::ui
