// Editing a TOML text in place (ui/workbench/toml_text_edit.h): a value replaced where it stands
// (also a multi-line array), a key added after its table's last key or as a new table at the end,
// a key line removed, comments kept; a key inside an inline table cannot be removed line-wise.
#include "ui/workbench/toml_text_edit.h"

#include <gtest/gtest.h>

namespace deepladder::ui {
namespace {

const std::string kText =
    "# notes\n"
    "[train]\n"
    "lr = 3e-3  # tuned\n"
    "batch_size = 16\n"
    "\n"
    "[sizes]\n"
    "depths = [2,\n"
    "          4]\n"
    "[model]\n"
    "opts = { seq_len = 64 }\n";

TEST(TomlTextEdit, ReplacesAValueWhereItStands) {
  const toml::value<double> lr(0.001);
  const auto out = editValueInPlace(kText, "train", "lr", &lr);
  ASSERT_TRUE(out);
  EXPECT_NE(out->find("lr = 0.001  # tuned\n"), std::string::npos) << *out;
  EXPECT_EQ(out->rfind("# notes\n", 0), 0u) << *out;
}

TEST(TomlTextEdit, ReplacesAMultiLineArray) {
  toml::array depths{2, 3, 4};
  const auto out = editValueInPlace(kText, "sizes", "depths", &depths);
  ASSERT_TRUE(out);
  EXPECT_NE(out->find("depths = [ 2, 3, 4 ]\n[model]"), std::string::npos) << *out;
}

TEST(TomlTextEdit, AddsAfterTheTablesLastKeyOrAsANewTable) {
  const toml::value<int64_t> every(50);
  auto out = editValueInPlace(kText, "train", "eval_every", &every);
  ASSERT_TRUE(out);
  EXPECT_NE(out->find("batch_size = 16\neval_every = 50\n\n[sizes]"), std::string::npos) << *out;
  const toml::value<int64_t> retries(3);
  out = editValueInPlace(kText, "resources", "retries", &retries);
  ASSERT_TRUE(out);
  EXPECT_NE(out->find("opts = { seq_len = 64 }\n\n[resources]\nretries = 3\n"), std::string::npos)
      << *out;
}

TEST(TomlTextEdit, RemovesAKeyLineButNotAKeyInsideAnInlineTable) {
  const auto out = editValueInPlace(kText, "train", "lr", nullptr);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->find("lr"), std::string::npos) << *out;
  EXPECT_NE(out->find("[train]\nbatch_size = 16\n"), std::string::npos) << *out;
  EXPECT_FALSE(editValueInPlace(kText, "model.opts", "seq_len", nullptr))
      << "an inline table's key has no line of its own: the caller rewrites the text";
  EXPECT_FALSE(editValueInPlace("[train\n", "train", "lr", nullptr)) << "not TOML";
}

}  // namespace
}  // namespace deepladder::ui
