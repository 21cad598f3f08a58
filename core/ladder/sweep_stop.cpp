// [sweep] stop = "halving" and its fractions (see sweep_stop.h).
#include "core/ladder/sweep_stop.h"

#include <algorithm>
#include <cstdio>

#include "core/errors.h"
#include "core/eval_fractions.h"

namespace deepladder::ladder {

bool isSweepStopKey(const std::string& key) {
  return key == "stop" || key == "stop_fractions";
}

SweepStop readSweepStop(TomlReader& t) {
  SweepStop out;
  out.halving = t.choice("stop", "none", {"none", "halving"}) == "halving";
  if (!t.has("stop_fractions")) {
    t.expect("stop_fractions");
    return out;
  }
  if (!out.halving)
    t.fail("stop_fractions", "fractions without stop = \"halving\" do nothing",
           "add stop = \"halving\" or remove stop_fractions");
  const toml::array* list = t.raw().get("stop_fractions")->as_array();
  if (!list || list->empty())
    t.fail("stop_fractions", "expected a non-empty list of fractions",
           "write e.g. stop_fractions = [0.25, 0.5, 0.75]");
  out.fractions.clear();
  for (const toml::node& node : *list) {
    const std::optional<double> v = node.value<double>();
    if (!v || !(*v > 0.0 && *v < 1.0))
      t.fail("stop_fractions", "every fraction must be a number in (0, 1)",
             "write e.g. stop_fractions = [0.25, 0.5, 0.75]");
    if (!out.fractions.empty() && *v <= out.fractions.back())
      t.fail("stop_fractions", "the fractions must ascend", "write e.g. [0.25, 0.5, 0.75]");
    out.fractions.push_back(*v);
  }
  t.skip("stop_fractions");
  return out;
}

std::string evalAtWithStopFractions(const std::string& eval_at, const SweepStop& stop) {
  if (!stop.halving) return eval_at;
  std::vector<double> fractions;
  try {
    fractions = parseEvalFractions(eval_at);
  } catch (const UserError&) {
    return eval_at;  // the run's validation says what is wrong, with the file's name
  }
  fractions.insert(fractions.end(), stop.fractions.begin(), stop.fractions.end());
  std::sort(fractions.begin(), fractions.end());
  fractions.erase(std::unique(fractions.begin(), fractions.end()), fractions.end());
  std::string out;
  for (double f : fractions) {
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", f);
    out += (out.empty() ? "" : ",") + std::string(text);
  }
  return out;
}

void refuseArmSweepStop(const TomlReader& arm_sweep) {
  for (const char* key : {"stop", "stop_fractions"})
    if (arm_sweep.has(key))
      arm_sweep.fail(key, "early stopping is the ladder's, not an arm's",
                     "move it to the ladder's [sweep] table");
}

}  // namespace deepladder::ladder
