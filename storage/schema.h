// Schema of the deepladder database and its migrations (PRAGMA user_version).
// Internal to storage/: Database::open calls migrate() inside a write transaction.
#pragma once

#include <string>

struct sqlite3;

namespace deepladder::storage {

// Brings a database from `from_version` (0 = empty) to Database::kSchemaVersion. Must run inside
// a write transaction; sets user_version last.
void migrate(sqlite3* db, int from_version);

// "" when `db` has every table and column of the current schema; else what is missing ("table
// 'metrics' is missing"). A file with the right user_version but a dropped table is damaged.
std::string schemaProblem(sqlite3* db);

}  // namespace deepladder::storage
