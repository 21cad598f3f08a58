// One database per work directory (see work_root.h).
#include "storage/work_root.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "core/errors.h"
#include "core/safe_file.h"
#include "storage/database.h"

namespace deepladder::storage {

namespace fs = std::filesystem;

namespace {

std::string readSmallFile(const std::string& path) {
  const int fd = openRegularFile(path, O_RDONLY, "the work directory's owner file");
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0 && text.size() < 65536;)
    text.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

struct Owner {
  int64_t id = 0;
  fs::path database;  // absolute, resolved against the work root
};

Owner readOwner(const fs::path& marker, const fs::path& root) {
  Owner owner;
  try {
    const auto json = nlohmann::json::parse(readSmallFile(marker.string()));
    owner.id = json.at("database_id").get<int64_t>();
    owner.database = (root / json.at("database").get<std::string>()).lexically_normal();
  } catch (const nlohmann::json::exception& e) {
    throw UserError(marker.string() +
                    ": the file naming the database this work directory belongs to is damaged (" +
                    e.what() + "). Remove it if only this database uses " + root.string());
  }
  return owner;
}

// Writes the marker whole; without `replace`, only where there is none yet (link(2) does not
// replace a marker another process has just written). False when that happened.
bool writeOwner(const fs::path& marker, const fs::path& root, int64_t id, const fs::path& db,
                bool replace) {
  nlohmann::json json;
  json["database_id"] = id;
  json["database"] = db.lexically_relative(root).string();
  const fs::path temp = root / (".database-" + std::to_string(::getpid()) + ".json");
  writeFileAtomically(temp.string(), json.dump(2) + "\n", "the work directory's owner file");
  if (replace) {
    fs::rename(temp, marker);
    return true;
  }
  const bool linked = ::link(temp.c_str(), marker.c_str()) == 0;
  const int error = errno;
  ::unlink(temp.c_str());
  if (!linked && error != EEXIST)
    throw UserError(marker.string() + ": cannot write the work directory's owner file (" +
                    std::strerror(error) + ")");
  return linked;
}

}  // namespace

int64_t databaseIdentity(Database& db) {
  db.execute("CREATE TABLE IF NOT EXISTS database_identity(id INTEGER NOT NULL)");
  int64_t id = db.queryInt("SELECT id FROM database_identity LIMIT 1");
  if (id != 0) return id;
  std::random_device device;
  std::mt19937_64 random((uint64_t(device()) << 32) ^ device());
  do id = int64_t(random() >> 1);
  while (id == 0);
  db.execute("INSERT INTO database_identity(id) SELECT " + std::to_string(id) +
             " WHERE NOT EXISTS (SELECT 1 FROM database_identity)");
  return db.queryInt("SELECT id FROM database_identity LIMIT 1");
}

void claimWorkRoot(Database& db, const std::string& work_root) {
  const int64_t id = databaseIdentity(db);
  std::error_code ec;
  const fs::path root = fs::absolute(work_root).lexically_normal();
  fs::create_directories(root, ec);
  if (ec)
    throw UserError(root.string() + ": cannot create the work directory (" + ec.message() +
                    "). Pass --workdir to a writable place");
  const fs::path ours = fs::absolute(db.path()).lexically_normal();
  const fs::path marker = root / kWorkRootOwnerFile;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!fs::exists(fs::symlink_status(marker))) {
      if (writeOwner(marker, root, id, ours, /*replace=*/false)) return;
      continue;  // another process claimed it just now: read its claim
    }
    const Owner owner = readOwner(marker, root);
    const bool owner_exists = fs::exists(owner.database, ec);
    const bool same_file = owner_exists && fs::equivalent(owner.database, ours, ec);
    if (owner.id == id) {
      if (same_file) return;
      if (owner_exists)
        throw UserError(root.string() + " belongs to the database " + owner.database.string() +
                        ", and " + ours.string() +
                        " is a copy of it (the same identity). Give the copy its own work "
                        "directory: --workdir DIR, or put it in a folder of its own");
      // The database was renamed or moved with its work directory: the claim follows it.
      writeOwner(marker, root, id, ours, /*replace=*/true);
      return;
    }
    throw UserError(root.string() + " belongs to another database, " + owner.database.string() +
                    (owner_exists ? "" : " (not there now)") + "; this is " + ours.string() +
                    ". Two databases must not share a work directory (their runs' checkpoints "
                    "and workers would mix): give this one its own with --workdir DIR, or put it "
                    "in a folder of its own");
  }
  throw UserError(marker.string() + ": cannot claim the work directory (it changes as it is read)");
}

}  // namespace deepladder::storage
