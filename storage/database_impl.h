// Internal to storage/: what a Database holds (the connection and its cached prepared
// statements). Only forward-declares SQLite's types.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "storage/database.h"
#include "storage/statement.h"

struct sqlite3;

namespace deepladder::storage {

struct Database::Impl {
  sqlite3* db = nullptr;
  std::string path;
  bool read_only = false;
  // Prepared once per connection, keyed by their SQL text (string literals in storage/*.cpp).
  std::unordered_map<std::string, std::unique_ptr<Statement>> statements;

  ~Impl();
  // The cached statement for `sql`, reset and ready to bind.
  Statement& prepared(const std::string& sql);
};

}  // namespace deepladder::storage
