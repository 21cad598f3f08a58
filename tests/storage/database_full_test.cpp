// A database whose disk is full (simulated with PRAGMA max_page_count: SQLite answers SQLITE_FULL
// exactly as on a full disk) ends with a DiskFullError naming the database, not a raw
// "SQLite step failed ... COMMIT".
#include <gtest/gtest.h>

#include "core/disk_full.h"
#include "storage/database.h"
#include "temp_dir.h"

namespace deepladder::storage {

TEST(DatabaseFull, AFullDatabaseSaysSoNamingTheFile) {
  testing::TempDir dir;
  const std::string path = dir.file("runs.db");
  auto db = Database::open(path);
  const int64_t pages = db->queryInt("PRAGMA page_count");
  db->execute("PRAGMA max_page_count = " + std::to_string(pages + 2));
  std::string message;
  try {
    Transaction transaction(*db);
    for (int i = 0; i < 2000; ++i) {
      RunRecord run;
      run.name = "run-" + std::to_string(i) + std::string(400, 'x');
      db->insertRun(run);
    }
    transaction.commit();
  } catch (const DiskFullError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("the disk holding the database"), std::string::npos) << message;
  EXPECT_NE(message.find("runs.db is full"), std::string::npos) << message;
  // Nothing half-written, and the database still answers.
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM runs"), 0);
  EXPECT_EQ(db->integrityCheck(), "ok");
}

}  // namespace deepladder::storage
