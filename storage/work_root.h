// A work directory (checkpoints, logs, configs of runs) belongs to one database. Two databases
// in one folder would otherwise share deepladder-work/: the second scheduler would take the first
// one's live workers for leftovers and stop them, and resume runs from the other's checkpoints.
// Each database carries a random identity (table database_identity, made on first use); the work
// root holds database.json naming the identity and the database (relative to the work root, so a
// project folder moved as a whole keeps its claim). A root claimed by another database, or by
// the database this one is a copy of, is refused with both named.
#pragma once

#include <cstdint>
#include <string>

namespace deepladder::storage {

class Database;

// The database's identity, created (a random positive 63-bit number) when it has none yet.
int64_t databaseIdentity(Database& db);

// Claims `work_root` (created when missing) for `db`, or throws UserError naming the database
// that owns it. Call before any run directory under it is made or used.
void claimWorkRoot(Database& db, const std::string& work_root);

// File in the work root that names its database.
inline constexpr const char* kWorkRootOwnerFile = "database.json";

}  // namespace deepladder::storage
