// Schema v7 (storage/ladder_rehash.h): ladders stored with the hash of their file's bytes are
// hashed again by their parsed content, so that the same file run again, even with CRLF line
// endings or a new comment, finds its ladder and its finished runs.
#include <gtest/gtest.h>

#include "core/ladder/ladder_identity.h"
#include "core/ladder/ladder_spec.h"
#include "core/sha256.h"
#include "schema_downgrade.h"
#include "storage/database.h"
#include "storage/ladder_queue.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

const std::string kLadder = R"([ladder]
name = "old"
[model]
seq_len = 32
[train]
batch_size = 4
[sizes]
depths = [2]
width_per_depth = 32
head_dim = 16
[budget]
rule = "tokens"
tokens = 2048
)";

std::string byteHash(const std::string& text) {
  return sha256Hex(text.data(), text.size()).substr(0, 16);
}

}  // namespace

TEST(LadderIdentityMigration, StoredLaddersKeepTheirRunsUnderTheParsedContentsHash) {
  testing::TempDir dir;
  const std::string path = dir.file("runs.db");
  const std::string commented = "# the same ladder, one comment more\n" + kLadder;
  int64_t old_id = 0, twin_id = 0;
  {
    // As schema v6 left it: the byte hash of each spec; a second ladder whose spec differs by a
    // comment only (a new ladder then), and a spec that is not TOML.
    auto db = Database::open(path);
    old_id = db->upsertLadder("old", kLadder, byteHash(kLadder));
    twin_id = db->upsertLadder("old", commented, byteHash(commented));
    db->upsertLadder("hand", "not = [toml", "feedfacefeedface");
    testing::downgradeToSchemaV6(*db);
  }
  auto db = Database::open(path);
  EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
  const std::string identity = ladder::ladderIdentityHash(kLadder, "x");
  ASSERT_TRUE(db->ladder(old_id));
  EXPECT_EQ(db->ladder(old_id)->hash, identity);
  // The later twin keeps its own hash (both keep their runs; the file finds the older one).
  EXPECT_EQ(db->ladder(twin_id)->hash, byteHash(commented));
  EXPECT_EQ(db->findLadder("feedfacefeedface").has_value(), true);

  // The file run again with CRLF line endings is the stored ladder, not a new one.
  std::string crlf;
  for (char c : kLadder) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const ladder::LadderSpec spec = ladder::parseLadder(crlf, "ladder.toml");
  EXPECT_EQ(spec.hash, identity);
  const EnqueueResult queued = enqueueLadder(*db, spec, dir.file("work"));
  EXPECT_FALSE(queued.new_ladder);
  EXPECT_EQ(queued.ladder_id, old_id);
}

TEST(LadderIdentityMigration, AMigratedLaddersNewRunsJoinItsOldDirectory) {
  testing::TempDir dir;
  const ladder::LadderSpec spec = ladder::parseLadder(kLadder, "ladder.toml");
  const std::filesystem::path by_bytes = dir.path() / ("old-" + byteHash(kLadder).substr(0, 8));
  EXPECT_EQ(ladderWorkDir(spec, dir.path().string()),
            (dir.path() / ("old-" + spec.hash.substr(0, 8))).string());
  std::filesystem::create_directories(by_bytes);  // queued by an older deepladder
  EXPECT_EQ(ladderWorkDir(spec, dir.path().string()), by_bytes.string());
}

}  // namespace deepladder::storage
