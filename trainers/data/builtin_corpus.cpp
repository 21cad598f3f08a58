// The built-in corpora, written by scripts/setup from Debian packages, tokenized as bytes
// (newlines kept), split by a fixed rule:
// - kjv: the King James Bible (bible-kjv), one verse a line, 4.1 MB;
// - gcide: the GNU Collaborative International Dictionary of English (dict-gcide, GPL), one
//   entry a line (its wrapped lines and table rows joined, lines that are only a source tag such
//   as "[1913 Webster]" dropped), 31.5 MB in alphabetical order.
//
// Split rule: lines (each with its trailing newline) are grouped in blocks of
// kBuiltinBlockLines = 50 consecutive lines; block i goes to validation when
// i % kBuiltinValidationEvery == kBuiltinValidationEvery - 1 (i % 20 == 19), else to train.
// That holds out 5% of the text, spread through it (every book region is represented), in
// blocks long enough that validation windows rarely straddle text the model trained on.
//
// Training order: the training lines in units of kBuiltinShuffleLines = 10 consecutive lines (a
// unit ends where a held-out block starts), the units in a fixed seeded permutation
// (kBuiltinShuffleSeed). A run reads a prefix of the split (steps x batch windows, permuted),
// so in book order a small run would train on Genesis and be scored on the whole Bible (on the
// dictionary, on the letter A); in this order any prefix samples the whole text. The validation
// split keeps the file's order.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "trainers/data/mapped_file.h"
#include "trainers/data/token_sources.h"

namespace deepladder::data {

namespace {

// The Debian package scripts/setup writes a corpus from.
const char* sourcePackage(BuiltinCorpus corpus) {
  return corpus == BuiltinCorpus::kjv ? "bible-kjv" : "dict-gcide";
}

}  // namespace

std::string builtinCorpusPath(BuiltinCorpus corpus) {
  const char* override_path = std::getenv("DEEPLADDER_CORPUS");
  if (override_path != nullptr && override_path[0] != '\0') return override_path;
  return "/usr/local/share/deepladder/corpus/" + enumName(corpus) + ".txt";
}

Split builtinSplitOfLine(int64_t line_index) {
  const int64_t block = line_index / kBuiltinBlockLines;
  return block % kBuiltinValidationEvery == kBuiltinValidationEvery - 1 ? Split::kValidation
                                                                        : Split::kTrain;
}

std::unique_ptr<TokenData> openBuiltinTokenData(BuiltinCorpus corpus, Split split) {
  const std::string path = builtinCorpusPath(corpus);
  const std::string field = "data.corpus = \"" + enumName(corpus) + "\"";
  if (access(path.c_str(), R_OK) != 0) {
    throw UserError(locatedMessage(
        path, 0, field, std::string("cannot read the built-in corpus: ") + strerror(errno),
        std::string("Run `sudo scripts/setup` (it writes the corpus from Debian's ") +
            sourcePackage(corpus) +
            "), or set DEEPLADDER_CORPUS to a text file with one passage a line"));
  }
  const MappedFile file = MappedFile::open(path, field);
  const char* bytes = reinterpret_cast<const char*>(file.data());
  const int64_t size = file.size();
  std::string kept;
  kept.reserve(static_cast<size_t>(split == Split::kTrain ? size : size / 16));
  // Training units: [begin, end) byte ranges of up to kBuiltinShuffleLines kept lines.
  std::vector<std::pair<int64_t, int64_t>> units;
  int64_t line_start = 0;
  int64_t line_index = 0;
  int64_t lines_in_unit = 0;
  while (line_start < size) {
    const void* newline = std::memchr(bytes + line_start, '\n', size_t(size - line_start));
    const int64_t line_end =
        newline == nullptr ? size : static_cast<const char*>(newline) - bytes + 1;
    if (builtinSplitOfLine(line_index) == split) {
      if (split == Split::kValidation) {
        kept.append(bytes + line_start, size_t(line_end - line_start));
      } else if (lines_in_unit > 0 && units.back().second == line_start &&
                 lines_in_unit < kBuiltinShuffleLines) {
        units.back().second = line_end;
        ++lines_in_unit;
      } else {
        units.emplace_back(line_start, line_end);
        lines_in_unit = 1;
      }
    }
    line_start = line_end;
    ++line_index;
  }
  for (uint32_t unit : seededPermutation(units.size(), kBuiltinShuffleSeed))
    kept.append(bytes + units[unit].first, size_t(units[unit].second - units[unit].first));
  const std::string label = "builtin " + enumName(corpus) + " " +
                            (split == Split::kTrain ? "train" : "validation") + " '" + path + "'";
  return makeByteTokenData(std::move(kept), label);
}

}  // namespace deepladder::data
