// Imported results sources, stored under a name of their own (see imported_source.h).
#include "storage/imported_source.h"

#include "core/errors.h"
#include "core/safe_text.h"

namespace deepladder::storage {

void storeImportedSource(Database& db, const std::string& db_label, const std::string& name,
                         const std::vector<ExternalPoint>& points, bool replace) {
  Transaction transaction(db);  // checked and written at once: no other import between them
  if (db.findLadder(name))
    throw UserError("--name: \"" + shownText(name) + "\" is a trained ladder in " + db_label +
                    "; an import under its name would make `fit --ladder " + shownText(name) +
                    "` read one of the two. Import under another --name");
  const size_t stored = db.externalPoints(name).size();
  if (stored > 0 && !replace)
    throw UserError("--name: \"" + shownText(name) + "\" is already imported into " + db_label +
                    " (" + std::to_string(stored) +
                    " points). Pass --replace to replace its points, or import under another "
                    "--name");
  db.replaceExternalPoints(name, points);
  transaction.commit();
}

}  // namespace deepladder::storage
