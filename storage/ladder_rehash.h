// Schema v7: a ladder's identity became the hash of its parsed content (core/ladder/
// ladder_identity.h) instead of its file's bytes. The migration hashes every stored spec again,
// so that running the same file finds its ladder (and its finished runs) as before.
// Internal to storage/ (schema.cpp).
#pragma once

struct sqlite3;

namespace deepladder::storage {

// Sets each ladder's hash to ladderIdentityHash(spec). Kept as it was: a spec that no longer
// parses as TOML, and the later of two ladders whose specs mean the same (both keep their runs;
// the file finds the older one).
void rehashLadderSpecs(sqlite3* db);

}  // namespace deepladder::storage
