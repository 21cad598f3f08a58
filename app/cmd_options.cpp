// `deepladder options [FILTER] [--markdown]`: the reference of every run option (key, type,
// default, allowed values, the task that uses it, what it does), generated from the schema.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/options/option_docs.h"

namespace deepladder::app {
namespace {

struct OptionsOptions {
  std::string filter;
  bool markdown = false;
};

int runOptions(const OptionsOptions& o) {
  if (o.markdown) {
    std::fputs(options::optionsReferenceMarkdown().c_str(), stdout);
    return 0;
  }
  const std::string text = options::optionsReferenceText(o.filter);
  if (text.empty())
    throw UserError("no run option matches \"" + o.filter +
                    "\". Run 'deepladder options' for the whole list");
  std::fputs(text.c_str(), stdout);
  return 0;
}

CommandRegistrar register_options("options", 95, [](CLI::App& cli) {
  auto o = std::make_shared<OptionsOptions>();
  auto* cmd = cli.add_subcommand(
      "options", "Every run option: key, type, default, allowed values and what it does");
  cmd->add_option("filter", o->filter, "Only options whose key contains this (e.g. model.grow)");
  cmd->add_flag("--markdown", o->markdown,
                "The reference as Markdown tables (as in docs/options.md)");
  cmd->callback([o] { commandExitCode() = runOptions(*o); });
});

}  // namespace
}  // namespace deepladder::app
