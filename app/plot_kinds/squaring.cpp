// `deepladder plot squaring`: a task = "squaring" ladder, training compute against OOD exact
// match (with its line a + b log10(C/C0)) and against Max T on seen and unseen moduli, per arm.
#include "app/plot_kinds/plot_data.h"
#include "core/errors.h"

namespace deepladder::app {
namespace {

const plots::PlotKindRegistrar register_squaring_plot({
    "squaring",
    "a task = \"squaring\" ladder: training compute vs OOD exact match and vs Max T per arm "
    "(--db --ladder)",
    {},
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      if (!requestsSquaringLadder(request))
        throw UserError(
            "plot squaring: give --db FILE --ladder NAME of a ladder with task = \"squaring\"");
      return squaringLadderDrawing(request);
    },
});

}  // namespace
}  // namespace deepladder::app
