// The CLI11 check every run-id argument carries (core/run_id.h): an id out of range or not a
// number is refused while the command line is read (exit 2, the argument named).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/run_id.h"

namespace deepladder::app {

inline CLI::Validator runIdCheck() {
  return CLI::Validator([](std::string& text) { return runIdProblem(text); }, "RUN_ID", "run id");
}

}  // namespace deepladder::app
