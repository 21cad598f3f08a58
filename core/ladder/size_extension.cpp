// Larger sizes by the ladder's depth rule (see size_extension.h). The spec's TOML is extended
// (more depths, arm size lists and crossover tables continued) and planned by parseLadder, so a
// larger size is planned by the very code that plans the ladder.
#include "core/ladder/size_extension.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/errors.h"
#include "core/ladder/memory_plan.h"
#include "core/toml_reader.h"

namespace deepladder::ladder {
namespace {

std::string depthName(int64_t depth) {
  return "d" + std::to_string(depth);
}

// Depth of a size name "dN" (-1 for anything else).
int64_t depthOf(const std::string& name) {
  if (name.size() < 2 || name[0] != 'd') return -1;
  for (size_t i = 1; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return -1;
  return std::stoll(name.substr(1));
}

// The depth list continued by `more` steps of its last difference (at least 1).
std::vector<int64_t> continuedDepths(const std::vector<int64_t>& depths, int more) {
  std::vector<int64_t> out = depths;
  const int64_t last = depths.back();
  const int64_t step = depths.size() >= 2 ? std::max<int64_t>(1, last - depths[depths.size() - 2])
                                          : std::max<int64_t>(1, last / 4);
  for (int i = 1; i <= more; ++i) out.push_back(last + step * i);
  return out;
}

// An arm's crossover table gets the fraction of its deepest entry for every deeper size it lacks
// (the new depths, and grid depths the arm did not run).
void continueCrossover(toml::table& arm, const std::vector<int64_t>& depths) {
  toml::table* cross = arm["crossover"].as_table();
  if (!cross || cross->empty()) return;
  int64_t deepest = -1;
  double fraction = 0;
  for (const auto& [key, value] : *cross) {
    const int64_t d = depthOf(std::string(key.str()));
    if (d > deepest && value.value<double>()) deepest = d, fraction = *value.value<double>();
  }
  if (deepest < 0) return;
  for (int64_t d : depths)
    if (d > deepest && !cross->contains(depthName(d))) cross->insert(depthName(d), fraction);
}

}  // namespace

std::vector<PlannedRun> largerSizeRuns(const LadderSpec& spec, int more) {
  if (more <= 0 || spec.text.empty()) return {};
  toml::table root = parseTomlString(spec.text, spec.source);
  toml::array* depth_list = root["sizes"]["depths"].as_array();
  if (!depth_list || depth_list->empty()) return {};
  std::vector<int64_t> depths;
  for (const auto& v : *depth_list)
    if (auto d = v.value<int64_t>()) depths.push_back(*d);
  if (depths.empty()) return {};

  // Each arm's largest size in the spec; every arm needs `more` depths above its own.
  std::map<std::string, int64_t> largest;
  for (const PlannedRun& run : spec.runs)
    largest[run.arm] = std::max(largest[run.arm], depthOf(run.size));
  int steps_needed = more;
  std::vector<int64_t> all = continuedDepths(depths, steps_needed);
  while (true) {
    bool enough = true;
    for (const auto& [arm, top] : largest) {
      const auto above = std::count_if(all.begin(), all.end(), [&](int64_t d) { return d > top; });
      enough = enough && above >= more;
    }
    if (enough) break;
    all = continuedDepths(depths, ++steps_needed);
  }
  const std::vector<int64_t> new_depths(all.begin() + depths.size(), all.end());

  toml::array extended;
  for (int64_t d : all) extended.push_back(d);
  root["sizes"].as_table()->insert_or_assign("depths", extended);

  // A per-rung FLOP budget continues geometrically.
  if (toml::array* flops = root["budget"]["flops"].as_array(); flops && flops->size() >= 2) {
    const double last = flops->back().value<double>().value_or(0);
    const double prev = (*flops)[flops->size() - 2].value<double>().value_or(0);
    const double ratio = prev > 0 ? last / prev : 1.0;
    double f = last;
    for (size_t i = 0; i < new_depths.size(); ++i) flops->push_back(f *= ratio);
  }

  // Arms: size lists continued, crossover fractions for the new sizes.
  if (toml::table* arms = root["arms"].as_table()) {
    for (auto& [name, node] : *arms) {
      toml::table* arm = node.as_table();
      if (!arm) continue;
      if (toml::array* sizes = (*arm)["sizes"].as_array()) {
        const int64_t top =
            largest.count(std::string(name.str())) ? largest[std::string(name.str())] : 0;
        for (int64_t d : all)
          if (d > top) sizes->push_back(depthName(d));
      }
      continueCrossover(*arm, all);
    }
  }

  // Planned without the device limit (a rung past the ladder may not fit, and must not refuse the
  // others); each candidate is then checked against the ladder's devices and left out when even
  // micro-batch 1 does not fit.
  if (toml::table* resources = root["resources"].as_table()) resources->erase("device_memory_gb");
  std::ostringstream text;
  text << root;
  const LadderSpec bigger = parseLadder(text.str(), spec.source + " (larger sizes)");
  const DeviceBudget device = budgetFromResources(spec.resources);
  const int64_t seed = spec.seeds.empty() ? 1 : spec.seeds.front();
  std::vector<PlannedRun> out;
  std::map<std::string, int> taken;
  for (const PlannedRun& run : bigger.runs) {
    if (run.seed != seed) continue;
    const auto top = largest.find(run.arm);
    if (top == largest.end() || depthOf(run.size) <= top->second) continue;
    PlannedRun candidate = run;
    try {
      planMemory(candidate, device);
    } catch (const UserError&) {
      continue;  // does not fit the ladder's devices
    }
    if (taken[run.arm]++ >= more) continue;
    out.push_back(std::move(candidate));
  }
  return out;
}

}  // namespace deepladder::ladder
