// A ladder's identity: the hash of what its file says once parsed, not of its bytes. The parsed
// TOML is written out in one canonical spelling (JSON: keys sorted, numbers, strings and dates
// in one form, integers apart from floats), so CRLF line endings, comments, whitespace, key
// order, quoting and table layout (dotted keys, inline tables, headers) make no new ladder,
// while any changed value does.
//
// What it does not do: resolve defaults (writing an option's default value explicitly is a
// change), or decide what a changed ladder means for its runs (storage/ladder_queue.h).
#pragma once

#include <toml++/toml.h>

#include <string>

namespace deepladder::ladder {

// The canonical spelling of a parsed ladder file.
std::string canonicalLadderContent(const toml::table& root);

// The first 16 hex digits of the SHA-256 of canonicalLadderContent(root).
std::string ladderIdentityHash(const toml::table& root);

// The same, parsing `text` first (UserError when it is not TOML): how a stored spec is hashed
// again (storage/schema.cpp's v7 migration).
std::string ladderIdentityHash(const std::string& text, const std::string& source_name);

}  // namespace deepladder::ladder
