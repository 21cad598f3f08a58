// The registry of `deepladder` subcommands (see command_registry.h).
#include "app/command_registry.h"

namespace deepladder::app {

std::vector<CommandEntry>& commandRegistry() {
  static std::vector<CommandEntry> registry;
  return registry;
}

int& commandExitCode() {
  static int code = 0;
  return code;
}

}  // namespace deepladder::app
