// A work directory belongs to one database: a second database in the same folder is refused with
// both named (it would stop the first one's workers as leftovers and mix their checkpoints), a
// copy of a database is refused, and a project folder moved or a database renamed keeps its claim.
#include "storage/work_root.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "storage/database.h"
#include "tests/storage/temp_dir.h"

namespace deepladder::storage {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string refusal(Database& db, const std::string& root) {
  try {
    claimWorkRoot(db, root);
  } catch (const UserError& e) {
    return e.what();
  }
  return {};
}

TEST(WorkRootTest, SecondDatabaseInTheSameFolderIsRefusedWithBothNamed) {
  TempDir dir;
  auto a = Database::open(dir.file("a.db"));
  auto b = Database::open(dir.file("b.db"));
  const std::string root = dir.file("deepladder-work");
  EXPECT_EQ(refusal(*a, root), "");
  EXPECT_EQ(refusal(*a, root), "") << "the owner claims its own root again";
  const std::string message = refusal(*b, root);
  EXPECT_NE(message.find(dir.file("a.db")), std::string::npos) << message;
  EXPECT_NE(message.find(dir.file("b.db")), std::string::npos) << message;
  EXPECT_NE(message.find("--workdir"), std::string::npos) << message;
}

TEST(WorkRootTest, IdentityIsStableAndDistinct) {
  TempDir dir;
  auto a = Database::open(dir.file("a.db"));
  auto b = Database::open(dir.file("b.db"));
  const int64_t id = databaseIdentity(*a);
  EXPECT_GT(id, 0);
  EXPECT_EQ(databaseIdentity(*a), id);
  EXPECT_NE(databaseIdentity(*b), id);
  a.reset();
  EXPECT_EQ(databaseIdentity(*Database::open(dir.file("a.db"))), id);
  EXPECT_EQ(databaseIdentity(*Database::open(dir.file("a.db"), /*read_only=*/false)), id);
}

TEST(WorkRootTest, MovedProjectFolderKeepsItsClaim) {
  TempDir dir;
  fs::create_directories(dir.path() / "old");
  {
    auto db = Database::open(dir.file("old/runs.db"));
    ASSERT_EQ(refusal(*db, dir.file("old/deepladder-work")), "");
  }
  fs::rename(dir.path() / "old", dir.path() / "new");
  auto db = Database::open(dir.file("new/runs.db"));
  EXPECT_EQ(refusal(*db, dir.file("new/deepladder-work")), "");
}

TEST(WorkRootTest, RenamedDatabaseKeepsItsClaimAndACopyIsRefused) {
  TempDir dir;
  {
    auto db = Database::open(dir.file("a.db"));
    ASSERT_EQ(refusal(*db, dir.file("deepladder-work")), "");
  }
  fs::rename(dir.file("a.db"), dir.file("renamed.db"));
  {
    auto db = Database::open(dir.file("renamed.db"));
    EXPECT_EQ(refusal(*db, dir.file("deepladder-work")), "");
  }
  fs::copy_file(dir.file("renamed.db"), dir.file("copy.db"));
  auto copy = Database::open(dir.file("copy.db"));
  const std::string message = refusal(*copy, dir.file("deepladder-work"));
  EXPECT_NE(message.find("copy"), std::string::npos) << message;
}

TEST(WorkRootTest, DamagedOwnerFileIsAClearError) {
  TempDir dir;
  auto db = Database::open(dir.file("a.db"));
  fs::create_directories(dir.path() / "w");
  std::ofstream(dir.file("w/database.json")) << "{not json";
  const std::string message = refusal(*db, dir.file("w"));
  EXPECT_NE(message.find("damaged"), std::string::npos) << message;
}

TEST(WorkRootTest, OwnerFileThatIsALinkIsRefused) {
  TempDir dir;
  auto db = Database::open(dir.file("a.db"));
  fs::create_directories(dir.path() / "w");
  std::ofstream(dir.file("target.json")) << "{}";
  fs::create_symlink(dir.file("target.json"), dir.file("w/database.json"));
  const std::string message = refusal(*db, dir.file("w"));
  EXPECT_NE(message.find("symbolic link"), std::string::npos) << message;
}

}  // namespace
}  // namespace deepladder::storage
