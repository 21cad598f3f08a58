// train.eval_at (see eval_fractions.h).
#include "core/eval_fractions.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.h"

namespace deepladder {

std::vector<double> parseEvalFractions(const std::string& text) {
  std::vector<double> out;
  std::stringstream list(text);
  std::string entry;
  while (std::getline(list, entry, ',')) {
    const auto first = entry.find_first_not_of(" \t");
    if (first == std::string::npos) {
      if (text.find_first_not_of(" \t") == std::string::npos) break;  // "" or blanks: none
      throw UserError("train.eval_at = \"" + text +
                      "\": an empty entry; write fractions of the run separated by commas, e.g. "
                      "\"0.25,0.5,0.75\"");
    }
    const std::string value = entry.substr(first, entry.find_last_not_of(" \t") - first + 1);
    size_t used = 0;
    double f = std::nan("");
    try {
      f = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || !(f > 0.0 && f < 1.0))
      throw UserError("train.eval_at = \"" + text + "\": \"" + value +
                      "\" is not a fraction of the run strictly between 0 and 1 (the end is "
                      "always validated); e.g. \"0.25,0.5,0.75\"");
    out.push_back(f);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int64_t evalFractionStep(double fraction, int64_t steps) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::floor(fraction * double(steps))));
}

bool evalAtStep(const std::vector<double>& fractions, int64_t step, int64_t steps) {
  return std::any_of(fractions.begin(), fractions.end(),
                     [&](double f) { return evalFractionStep(f, steps) == step; });
}

}  // namespace deepladder
