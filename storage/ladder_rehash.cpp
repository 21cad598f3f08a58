// Stored ladders hashed again by their parsed content (see ladder_rehash.h).
#include "storage/ladder_rehash.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/ladder/ladder_identity.h"
#include "storage/statement.h"

namespace deepladder::storage {

void rehashLadderSpecs(sqlite3* db) {
  struct Stored {
    int64_t id;
    std::string spec, hash;
  };
  std::vector<Stored> ladders;
  std::set<std::string> taken;
  {
    Statement select(db, "SELECT id, spec, hash FROM ladders ORDER BY id");
    while (select.step()) {
      ladders.push_back({select.columnInt(0), select.columnText(1), select.columnText(2)});
      taken.insert(ladders.back().hash);
    }
  }
  Statement update(db, "UPDATE ladders SET hash = ?2 WHERE id = ?1");
  for (const Stored& ladder : ladders) {
    std::string identity;
    try {
      identity = ladder::ladderIdentityHash(ladder.spec, "ladder " + std::to_string(ladder.id));
    } catch (const UserError&) {
      continue;  // not TOML (written by hand): it keeps the hash it has
    }
    if (identity == ladder.hash || taken.count(identity)) continue;
    taken.erase(ladder.hash);
    taken.insert(identity);
    update.bindAll(ladder.id, identity);
    update.run();
  }
}

}  // namespace deepladder::storage
