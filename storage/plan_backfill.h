// Migration helper for schema v2: fills the plan columns of ladders and runs queued before plans
// were stored, from their spec text and config JSON (what re-parsing used to recompute on every
// read). Internal to storage/: called by migrate() inside its transaction.
#pragma once

struct sqlite3;

namespace deepladder::storage {

void backfillPlans(sqlite3* db);

}  // namespace deepladder::storage
