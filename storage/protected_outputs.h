// What the outputs of a command that reads a database must not replace (core/safe_file.h's
// ProtectedPaths): the database file with its -wal, -shm and -journal, and every work directory
// of its runs: deepladder-work beside the database, and the work root of each run directory it
// names (the folder above it holding database.json, storage/work_root.h; a run directory without
// one is protected itself, with its parent). An `--out` into any of them could replace a
// checkpoint, a log or a config a run resumes from.
#pragma once

#include <string>

#include "core/safe_file.h"

namespace deepladder::storage {

class Database;

ProtectedPaths databaseInputs(Database& db, const std::string& db_path);

// The same for a path: opened read-only when it is a database file; otherwise (missing, not a
// file: the command refuses it on its own) the path with -wal/-shm/-journal and the work directory
// beside it. "" protects nothing.
ProtectedPaths databaseInputs(const std::string& db_path);

}  // namespace deepladder::storage
