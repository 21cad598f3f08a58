// The plot kinds `deepladder plot` renders, each registered once: its name, a one-line help, its
// own command-line options and its renderer. `deepladder plot` builds its --help, its check of the
// kind and its "not a plot kind" error from this list, and the workbench's views draw with the
// same drawing functions, so every view's picture can also be rendered headless.
//
// A new plot kind is its drawing (ui/plots/<name>_plot.h/.cpp: an input struct and a draw
// function) plus one registration, app/plot_kinds/<name>.cpp (the registrar named after the kind:
// a unity build compiles several kinds in one translation unit):
//   const plots::PlotKindRegistrar register_name_plot({"name", "one line of help",
//       [o](CLI::App& cmd) { cmd.add_option("--its-option", o->value, "..."); },
//       [o](const plots::PlotRequest& r) -> plots::PlotDrawing { ...read...; return draw; }});
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fitting/fit_types.h"

class QCustomPlot;
namespace CLI {
class App;
}

namespace deepladder::plots {

// What every plot kind gets from the options `deepladder plot` shares.
struct PlotRequest {
  std::string kind;
  std::string db_path;        // --db ("" when not given)
  std::string ladder;         // --ladder
  std::string csv;            // --csv (a results CSV instead of --db)
  std::vector<int64_t> runs;  // --run (any number)
  std::string estimator;      // --estimator (paper | robust)
  bool c_ref_given = false;   // --c-ref on the command line
  fitting::FrontierOptions frontier = fitting::defaultFrontierOptions();  // fit options
};

// Draws a plot into an empty QCustomPlot already sized to the output.
using PlotDrawing = std::function<void(QCustomPlot&)>;

struct PlotKind {
  std::string name;
  std::string help;                                       // one line, for `deepladder plot --help`
  std::function<void(CLI::App&)> add_options;             // the kind's own options (may be empty)
  std::function<PlotDrawing(const PlotRequest&)> render;  // reads its data; UserError when bad
};

// Adds a kind; throws std::logic_error for a name registered already or an empty renderer.
void registerPlotKind(PlotKind kind);
// Every kind, by name.
std::vector<const PlotKind*> plotKinds();
// The kind of this name, or nullptr.
const PlotKind* findPlotKind(const std::string& name);
// The names, "a | b | c", for usage lines.
std::string plotKindNames(const std::string& separator = " | ");
// "  name  help" a line each, for --help.
std::string plotKindsHelp();
// The error for a name that is no kind: what the kinds are, and the nearest one when it looks
// like a typo.
std::string unknownPlotKindMessage(const std::string& name);

// A static object in a kind's file registers it at start-up.
struct PlotKindRegistrar {
  explicit PlotKindRegistrar(PlotKind kind) { registerPlotKind(std::move(kind)); }
};

}  // namespace deepladder::plots
