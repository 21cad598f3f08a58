// Imported results sources and trained ladders never share a name: `import
// --name X` over a trained ladder X was accepted and `fit --ladder X` then read the trained one;
// importing a name again replaced its points without a word.
#include "storage/imported_source.h"

#include <gtest/gtest.h>

#include <functional>

#include "core/errors.h"
#include "storage/result_points.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

std::vector<ExternalPoint> points(const std::string& arm, int n) {
  std::vector<ExternalPoint> out;
  for (int i = 0; i < n; ++i) out.push_back({"", arm, 1e15 * (i + 1), 3.0 - 0.1 * i, {}, {}, {}});
  return out;
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ImportedSource, ATrainedLaddersNameIsRefusedAndNothingIsWritten) {
  testing::TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  db->upsertLadder("x", "[ladder]\nname = \"x\"\n", "0123456789abcdef");
  const std::string e =
      errorOf([&] { storeImportedSource(*db, "runs.db", "x", points("vanilla", 3), false); });
  EXPECT_NE(e.find("\"x\" is a trained ladder in runs.db"), std::string::npos) << e;
  EXPECT_NE(e.find("another --name"), std::string::npos) << e;
  EXPECT_TRUE(db->externalPoints("x").empty());
  // --replace does not make it acceptable either.
  EXPECT_FALSE(errorOf([&] {
                 storeImportedSource(*db, "runs.db", "x", points("vanilla", 3), true);
               }).empty());
  EXPECT_TRUE(db->externalPoints("x").empty());
}

TEST(ImportedSource, ImportingANameAgainNeedsReplace) {
  testing::TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  storeImportedSource(*db, "runs.db", "paper", points("vanilla", 3), false);
  const std::string e =
      errorOf([&] { storeImportedSource(*db, "runs.db", "paper", points("other", 4), false); });
  EXPECT_NE(e.find("\"paper\" is already imported into runs.db (3 points)"), std::string::npos)
      << e;
  EXPECT_NE(e.find("--replace"), std::string::npos) << e;
  ASSERT_EQ(db->externalPoints("paper").size(), 3u);
  EXPECT_EQ(db->externalPoints("paper")[0].arm, "vanilla");
  storeImportedSource(*db, "runs.db", "paper", points("other", 4), true);
  ASSERT_EQ(db->externalPoints("paper").size(), 4u);
  EXPECT_EQ(db->externalPoints("paper")[0].arm, "other");
}

TEST(ImportedSource, AFitNeverReadsOneOfTwoSourcesOfOneName) {
  // A database from before the refusal: an import and a trained ladder named alike.
  testing::TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  db->replaceExternalPoints("x", points("vanilla", 3));
  db->upsertLadder("x", "[ladder]\nname = \"x\"\n", "0123456789abcdef");
  const std::string e = errorOf([&] { readResults(*db, "runs.db", "x"); });
  EXPECT_NE(e.find("names both a trained ladder and an imported source"), std::string::npos) << e;
  // A name that is only an import still reads.
  db->replaceExternalPoints("y", points("vanilla", 3));
  EXPECT_EQ(readResults(*db, "runs.db", "y").points.size(), 3u);
}

}  // namespace deepladder::storage
