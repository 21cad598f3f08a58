// The registry of fit forms (fit_form.h): every form --form accepts, by name. The built-in forms
// are registered in fit_forms.cpp, one line each; registerFitForm adds one at run time (a test's
// form, a plug-in).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fitting/fit_form.h"

namespace deepladder::fitting {

// The form named `name`; UserError naming the registered forms when there is none.
const FitForm& fitForm(const std::string& name);
// The form a fit was made with (FrontierOptions::form / FrontierResult::form).
const FitForm& formOf(const FrontierResult& result);

// The options a result was fitted with, as far as its form's formula and description need them
// (C0, estimator, joint, pinned E and its source).
FrontierOptions formOptionsOf(const FrontierResult& result);
// "L(C) = E + A (C/1e18)^-gamma" and the one-line description of a result's form; for pinned-e
// they name the pinned value and its source.
std::string formulaOf(const FrontierResult& result);
std::string formDescriptionOf(const FrontierResult& result);
// A plot's legend line for the law: the estimator's short legend for the power law, the form's
// description otherwise (a pinned E with its source).
std::string formLegendOf(const FrontierResult& result);

// Every registered form, in registration order (the built-in ones first).
std::vector<const FitForm*> fitForms();
// "frontier | curved | pinned-e" for help texts and errors.
std::string fitFormNames();

// Adds a form; UserError when its name is taken.
void registerFitForm(std::unique_ptr<FitForm> form);

}  // namespace deepladder::fitting
