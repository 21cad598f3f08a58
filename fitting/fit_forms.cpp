// The registry of fit forms (see fit_forms.h).
#include "fitting/fit_forms.h"

#include <mutex>

#include "core/errors.h"
#include "fitting/forms/builtin_forms.h"
#include "fitting/frontier_estimator.h"

namespace deepladder::fitting {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<FitForm>> forms;
  Registry() {
    // The built-in forms, one line each.
    forms.push_back(makePowerLawForm());
    forms.push_back(makeCurvedForm());
    forms.push_back(makePinnedEForm());
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const FitForm& fitForm(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& form : r.forms)
    if (form->name() == name) return *form;
  std::string names;
  for (const auto& form : r.forms) names += (names.empty() ? "" : " | ") + form->name();
  throw UserError("--form: no fit form '" + name + "'; the forms are " + names +
                  " (and auto, chinchilla)");
}

const FitForm& formOf(const FrontierResult& result) {
  return fitForm(result.form);
}

FrontierOptions formOptionsOf(const FrontierResult& result) {
  FrontierOptions o;
  o.form = result.form;
  o.c_ref = result.c_ref;
  o.estimator = result.estimator;
  o.joint = result.joint;
  o.baseline = result.baseline;
  o.pinned_E = result.pinned_E;
  o.pinned_E_source = result.pinned_E_source;
  return o;
}

std::string formulaOf(const FrontierResult& result) {
  return formOf(result).formula(formOptionsOf(result));
}

std::string formDescriptionOf(const FrontierResult& result) {
  return formOf(result).description(formOptionsOf(result));
}

std::string formLegendOf(const FrontierResult& result) {
  if (result.form == "frontier") return estimatorLegend(result.estimator, result.joint);
  return formDescriptionOf(result);
}

std::vector<const FitForm*> fitForms() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const FitForm*> out;
  for (const auto& form : r.forms) out.push_back(form.get());
  return out;
}

std::string fitFormNames() {
  std::string names;
  for (const FitForm* form : fitForms()) names += (names.empty() ? "" : " | ") + form->name();
  return names;
}

void registerFitForm(std::unique_ptr<FitForm> form) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& f : r.forms)
    if (f->name() == form->name())
      throw UserError("a fit form named '" + form->name() + "' is registered already");
  r.forms.push_back(std::move(form));
}

}  // namespace deepladder::fitting
