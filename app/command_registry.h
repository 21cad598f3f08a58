// Subcommands of the `deepladder` CLI register themselves here, one cmd_*.cpp file each, so the
// main stays a few lines of wiring. A registrar is a static object in the command's file:
//   CommandRegistrar register_fit("fit", 50, [](CLI::App& cli) { ... });
// named after its command: the files of a unity build share one translation unit, so two
// registrars of the same name would clash.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace deepladder::app {

struct CommandEntry {
  std::string name;
  int order;  // position in --help (lower first)
  std::function<void(CLI::App&)> install;
};

std::vector<CommandEntry>& commandRegistry();

struct CommandRegistrar {
  CommandRegistrar(std::string name, int order, std::function<void(CLI::App&)> install) {
    commandRegistry().push_back({std::move(name), order, std::move(install)});
  }
};

// Set by a command's callback; main returns it.
int& commandExitCode();

}  // namespace deepladder::app
