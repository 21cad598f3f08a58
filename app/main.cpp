// `deepladder`: the command-line front end. Wiring only: each subcommand lives in cmd_*.cpp and
// calls into core, storage and fitting. Bad input exits with status 2 and one clear message.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/safe_file.h"
#include "core/safe_text.h"

int main(int argc, char** argv) {
  using namespace deepladder;
  constexpr size_t kMaxMessageBytes = 4000;  // whatever a message echoes, a few lines at most
  CLI::App cli{
      "deepladder: plan, run and fit scaling ladders on computational depth.\n"
      "Runs train in worker processes; every metric lands in a SQLite file you can query."};
  cli.require_subcommand(1);
  cli.set_version_flag("--version", "deepladder 0.1.0");
  auto& registry = app::commandRegistry();
  std::stable_sort(registry.begin(), registry.end(),
                   [](const auto& a, const auto& b) { return a.order < b.order; });
  for (auto& entry : registry) entry.install(cli);
  int code = 0;
  try {
    cli.parse(argc, argv);
    code = app::commandExitCode();
  } catch (const CLI::ParseError& e) {
    code = cli.exit(e) == 0 ? 0 : kExitBadInput;
  } catch (const UserError& e) {
    std::fprintf(stderr, "deepladder: %s\n", boundedText(e.what(), kMaxMessageBytes).c_str());
    code = kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "deepladder: error: %s\n",
                 boundedText(e.what(), kMaxMessageBytes).c_str());
    code = 1;
  }
  // Whatever a command printed reached its destination, or the exit status says it did not (a
  // full disk, /dev/full): never an exit 0 with an empty or cut output.
  const std::string output_problem = finishStandardOutput();
  if (!output_problem.empty()) {
    std::fprintf(stderr, "deepladder: %s\n", output_problem.c_str());
    if (code == 0) code = kExitBadInput;
  }
  return code;
}
