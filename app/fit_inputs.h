// Inputs of `fit`, `export` and `plot` besides the runs themselves (storage/result_points.h reads
// those): the --at compute list; for a squaring ladder (task = "squaring") the runs' compute
// against Max T and OOD accuracy. Shared wiring for those commands.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fitting/fit_types.h"
#include "fitting/squaring_trend.h"

namespace CLI {
class App;
}
namespace deepladder::storage {
class Database;
}

namespace deepladder::app {

// Help text of --estimator (fit, export, plot); the value is parsed by fitting::parseEstimator
// when the command runs, so a bad one is a UserError naming the choices (exit 2).
inline constexpr const char* kEstimatorHelp =
    "paper (default: the growth paper's estimator, baseline Huber fit with E free, other arms "
    "OLS of ln(L - E) on ln(C/C0) with E fixed, t-intervals) | robust (nonlinear least squares "
    "+ Huber refit for every arm)";

// The law a frontier is fitted with (fit, export, plot): --form NAME|auto, --pin-e, --pin-e-source.
struct FormOptions {
  std::string form = "frontier";  // a registered fit form (fitting/fit_forms.h), or "auto"
  double pin_e = fitting::kNaN;   // --pin-e
  std::string pin_e_source;       // --pin-e-source
};

// Adds --form (with `extra_forms`, e.g. "chinchilla", listed in its help), --pin-e and
// --pin-e-source to `cmd`.
void addFormOptions(CLI::App* cmd, FormOptions& options, const std::string& extra_forms = "");

// Sets options.form, pinned_E and pinned_E_source from `form` (--pin-e alone means --form
// pinned-e); for "auto" chooses the form by the ladder's nested backtest (fitting/form_choice.h)
// and returns the reason, printed beside the fit ("" otherwise). UserError for an unknown form.
std::string applyFormOptions(const FormOptions& form, fitting::FrontierOptions& options,
                             const fitting::ResultsTable& table);

// One "deepladder: warning: ..." line on stderr per arm the frontier fit could not fit
// (ArmFit::no_fit, e.g. a loss at or below the shared E under the paper estimator).
void warnArmsWithoutFit(const fitting::FrontierResult& result);

// Warnings a fit's numbers need beside them, on stderr: an arm with no residual degrees of freedom
// once repeated (arm, compute) points are counted once (its standard errors say nothing), and a
// projection far beyond the largest run (more than 15 decades, or past 1e30 FLOPs).
void warnFitCaveats(const fitting::FrontierResult& result, const fitting::ResultsTable& table);

// UserError when `name` is the name of more than one ladder in `db` (a spec changed and run again
// is a new ladder of the same name): the fit would silently take the newest. Lists them with the
// hashes that name each one.
void requireOneLadderNamed(storage::Database& db, const std::string& name,
                           const std::string& db_path);

// "1e20,1e22" -> {1e20, 1e22}; UserError for anything that is not a positive number, and for an
// empty list.
std::vector<double> parseComputeList(const std::string& text);
// A comma list of numbers given to `option` ("--at"); an item that is no number or that `accept`
// refuses is a UserError: "--at: 'x' is not <what>. Give e.g. <example>".
std::vector<double> parseNumberList(const std::string& text, const std::string& option,
                                    const std::function<bool(double)>& accept,
                                    const std::string& what, const std::string& example);
// {1e20, 1e22} -> "1e20,1e22" (what parseComputeList reads back).
std::string formatComputeList(const std::vector<double>& computes);

// True when --db and --ladder name a ladder of the serial task (fit, export and plot then use
// compute vs Max T and OOD accuracy, fitting/squaring_trend.h).
bool isSquaringLadder(storage::Database& db, const std::string& ladder);

// C0 of the squaring fits: --c-ref when given, else 1e15 (E-tier ladders train 1e12-1e16 FLOPs).
inline constexpr double kSquaringDefaultCRef = 1e15;

// The squaring ladder's finished runs, summarized per arm with both fits.
fitting::SquaringLadderSummary readSquaringSummary(storage::Database& db,
                                                   const std::string& db_path,
                                                   const std::string& ladder, double c_ref);

}  // namespace deepladder::app
