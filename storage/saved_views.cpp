// Database members behind the saved plot views (see schema.cpp, v7, and records.h SavedView).
#include "storage/database.h"
#include "storage/database_impl.h"

namespace deepladder::storage {

void Database::saveView(const SavedView& view) {
  Statement& upsert = impl_->prepared(
      "INSERT INTO saved_views(name, kind, spec) VALUES (?1, ?2, ?3) "
      "ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, spec = excluded.spec, "
      "created = strftime('%Y-%m-%dT%H:%M:%SZ','now')");
  upsert.bindAll(view.name, view.kind, view.spec_json);
  upsert.run();
}

std::optional<SavedView> Database::savedView(const std::string& name) {
  Statement& select =
      impl_->prepared("SELECT name, kind, spec, created FROM saved_views WHERE name = ?1");
  ResetOnExit reset{select};
  select.bind(1, name);
  if (!select.step()) return std::nullopt;
  return SavedView{select.columnText(0), select.columnText(1), select.columnText(2),
                   select.columnText(3)};
}

std::vector<SavedView> Database::savedViews(const std::string& kind) {
  Statement& select = impl_->prepared(
      "SELECT name, kind, spec, created FROM saved_views WHERE ?1 = '' OR kind = ?1 ORDER BY name");
  ResetOnExit reset{select};
  select.bind(1, kind);
  std::vector<SavedView> views;
  while (select.step())
    views.push_back(SavedView{select.columnText(0), select.columnText(1), select.columnText(2),
                              select.columnText(3)});
  return views;
}

}  // namespace deepladder::storage
