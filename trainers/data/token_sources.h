// The concrete token sources behind openTokenData(): bytes (in memory or memory-mapped), llm.c
// shards, and the built-in corpus's split. Internal to deepladder_data; users see TokenData.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "trainers/data/token_data.h"

namespace deepladder::data {

// The config field that names a split's data: "data.train" or "data.val".
std::string splitKey(Split split);

// "3.93M", "812K", "950": token counts for describe().
std::string formatTokenCount(int64_t count);

// Bytes held in memory; token ids are the bytes. `label` goes into describe().
std::unique_ptr<TokenData> makeByteTokenData(std::string bytes, std::string label);

// A byte-level text file, memory-mapped; the whole file is one split.
std::unique_ptr<TokenData> openTextTokenData(const std::string& path, const std::string& key);

// llm.c shards matching `pattern` (a path or a glob(3) pattern), concatenated in sorted path
// order, each memory-mapped and checked (magic, version, size) on open.
std::unique_ptr<TokenData> openShardTokenData(const std::string& pattern, const std::string& key);

// One split of a built-in corpus (see builtin_corpus.cpp for the split rule).
std::unique_ptr<TokenData> openBuiltinTokenData(BuiltinCorpus corpus, Split split);

}  // namespace deepladder::data
