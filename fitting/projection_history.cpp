// Replaying a ladder's projection run by run (see projection_history.h).
#include "fitting/projection_history.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "fitting/fit_cache_key.h"
#include "fitting/json_number.h"

namespace deepladder::fitting {
namespace {

nlohmann::json toJson(const ProjectionSnapshot& s) {
  nlohmann::json arms = nlohmann::json::array();
  for (const auto& a : s.arms)
    arms.push_back({{"arm", a.arm},
                    {"m", jsonNumber(a.multiplier)},
                    {"lo", jsonNumber(a.lo)},
                    {"hi", jsonNumber(a.hi)},
                    {"points", a.points},
                    {"note", a.note}});
  return {{"target", s.target},
          {"runs", s.runs},
          {"spent", s.compute_spent},
          {"baseline", s.baseline},
          {"baseline_note", s.baseline_note},
          {"arms", arms}};
}

ProjectionSnapshot fromJson(const nlohmann::json& j) {
  ProjectionSnapshot s;
  s.target = j.at("target").get<double>();
  s.runs = j.at("runs").get<int>();
  s.compute_spent = j.at("spent").get<double>();
  s.baseline = j.at("baseline").get<std::string>();
  s.baseline_note = j.at("baseline_note").get<std::string>();
  for (const auto& a : j.at("arms"))
    s.arms.push_back({a.at("arm").get<std::string>(), jsonNumber(a.at("m")), jsonNumber(a.at("lo")),
                      jsonNumber(a.at("hi")), a.at("points").get<int>(),
                      a.at("note").get<std::string>()});
  return s;
}

}  // namespace

std::vector<ProjectionSnapshot> projectionHistory(const ResultsTable& table,
                                                  const FrontierOptions& options, double target,
                                                  FitCacheStore* cache, const std::string& source,
                                                  const std::atomic<bool>* abort) {
  const FrontierOptions o = projectionOptions(options, target);
  const std::string options_key = frontierOptionsKey(o);
  char target_text[32];
  std::snprintf(target_text, sizeof target_text, "%.17g", target);
  LiveProjection live(cache, source, o, target);
  std::vector<ProjectionSnapshot> out;
  ResultsTable prefix;
  prefix.source = table.source;
  for (const RunPoint& p : table.points) {
    if (abort && abort->load()) break;
    prefix.points.push_back(p);
    const std::string key =
        fitCacheKey("projection", {options_key, target_text, pointsKey(prefix.points)});
    if (cache) {
      if (std::optional<std::string> text = cache->load(key)) {
        try {
          out.push_back(fromJson(nlohmann::json::parse(*text)));
          continue;
        } catch (const std::exception&) {
          // an unreadable entry: replay this prefix and overwrite it
        }
      }
    }
    ProjectionSnapshot s = live.refresh(prefix);
    s.refitted.clear();
    if (cache) {
      CachedFitEntry entry;
      entry.key = key;
      entry.source = source;
      entry.form = "projection";
      entry.result_json = toJson(s).dump();
      cache->save(entry);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace deepladder::fitting
