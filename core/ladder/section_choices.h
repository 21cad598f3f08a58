// The values a ladder file's [budget] rule and [resources] backend take, in one place for the spec
// reader (ladder_sections.cpp) and the workbench's ladder form. Its own header: ladder_spec.h
// cannot be included next to Qt (its Resources::slots meets Qt's `slots` keyword).
#pragma once

#include <string>
#include <vector>

namespace deepladder::ladder {

// tokens, tokens_per_param, flops.
const std::vector<std::string>& budgetRuleChoices();
// local, slurm.
const std::vector<std::string>& resourceBackendChoices();

}  // namespace deepladder::ladder
