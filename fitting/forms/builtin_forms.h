// The built-in fit forms, one file each under fitting/forms/; fit_forms.cpp registers them.
#pragma once

#include <memory>

#include "fitting/fit_form.h"

namespace deepladder::fitting {

std::unique_ptr<FitForm> makePowerLawForm();  // "frontier" (power_law.cpp)
std::unique_ptr<FitForm> makeCurvedForm();    // "curved" (curved.cpp)
std::unique_ptr<FitForm> makePinnedEForm();   // "pinned-e" (pinned_e.cpp)

}  // namespace deepladder::fitting
