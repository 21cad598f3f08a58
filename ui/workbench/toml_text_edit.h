// Editing a TOML text in place, the way a person would: one value's characters replaced, one
// `key = value` line added after its table's last key or removed, so comments, order and spacing
// survive. The ladder designer's form writes through this; only reshaping the arms or sizes
// rewrites a whole text. Qt-free (toml++ only).
#pragma once

#include <toml++/toml.h>

#include <optional>
#include <string>

namespace deepladder::ui {

// The table at a dotted path ("resources.slurm") of `doc`, created when asked; null when absent
// or not a table.
toml::table* tableAt(toml::table& doc, const std::string& path, bool create);
const toml::table* tableAt(const toml::table& doc, const std::string& path);

// The value as TOML writes it: 3, 0.001, "text", [ 1, 2 ].
std::string tomlRepr(const toml::node& node);

// `text` with [table] key set to `want` (null: the key removed), edited in place; nullopt when
// the key sits where a line edit cannot reach it (an inline table, a dotted key) or the text does
// not parse. The result reads back as exactly `want`.
std::optional<std::string> editValueInPlace(const std::string& text, const std::string& table,
                                            const std::string& key, const toml::node* want);

}  // namespace deepladder::ui
