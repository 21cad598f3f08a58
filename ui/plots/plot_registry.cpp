// The plot-kind registry (see plot_registry.h).
#include "ui/plots/plot_registry.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

#include "core/nearest_word.h"

namespace deepladder::plots {
namespace {

// By name; filled by static registrars before main and by tests.
std::map<std::string, std::unique_ptr<PlotKind>>& registry() {
  static std::map<std::string, std::unique_ptr<PlotKind>> kinds;
  return kinds;
}

}  // namespace

void registerPlotKind(PlotKind kind) {
  if (kind.name.empty() || !kind.render)
    throw std::logic_error("plot kind \"" + kind.name + "\": a name and a renderer are needed");
  auto& kinds = registry();
  if (kinds.count(kind.name))
    throw std::logic_error("plot kind \"" + kind.name + "\" is registered twice");
  const std::string name = kind.name;
  kinds.emplace(name, std::make_unique<PlotKind>(std::move(kind)));
}

std::vector<const PlotKind*> plotKinds() {
  std::vector<const PlotKind*> kinds;
  for (const auto& [name, kind] : registry()) kinds.push_back(kind.get());
  return kinds;
}

const PlotKind* findPlotKind(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

std::string plotKindNames(const std::string& separator) {
  std::string names;
  for (const PlotKind* kind : plotKinds()) names += (names.empty() ? "" : separator) + kind->name;
  return names;
}

std::string plotKindsHelp() {
  size_t width = 0;
  for (const PlotKind* kind : plotKinds()) width = std::max(width, kind->name.size());
  std::string text;
  for (const PlotKind* kind : plotKinds())
    text += "  " + kind->name + std::string(width + 2 - kind->name.size(), ' ') + kind->help + "\n";
  return text;
}

std::string unknownPlotKindMessage(const std::string& name) {
  std::vector<std::string> names;
  for (const PlotKind* kind : plotKinds()) names.push_back(kind->name);
  const std::string near = nearestWord(name, names);
  return "plot: '" + name + "' is not a plot kind" +
         (near.empty() ? std::string() : " (did you mean '" + near + "'?)") + "; the kinds are " +
         plotKindNames(", ") + ". See 'deepladder plot --help'";
}

}  // namespace deepladder::plots
