// Runs imported from elsewhere: tag map, options and facts (see imported_run.h).
#include "core/import/imported_run.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/errors.h"
#include "core/metric_keys.h"
#include "core/names.h"
#include "core/safe_text.h"

namespace deepladder::imports {

ImportSettings defaultImportSettings() {
  ImportSettings s;
  s.final_metric = metric_keys::kValLoss;
  s.default_arm = "vanilla";  // the fits' default baseline arm
  return s;
}

std::string metricKeyOfTag(const ImportSettings& settings, const std::string& tag) {
  if (const auto it = settings.tag_map.find(tag); it != settings.tag_map.end()) return it->second;
  // What nanoGPT, OLMo-core, torchtitan, Lightning and HF Trainer log, as deepladder's keys.
  static const std::map<std::string, std::string> kKnown = {
      {"loss", metric_keys::kTrainLoss},
      {"train_loss", metric_keys::kTrainLoss},
      {"train/CE loss", metric_keys::kTrainLoss},
      {"train/ce_loss", metric_keys::kTrainLoss},
      {"loss_metrics/global_avg_loss", metric_keys::kTrainLoss},
      {"val_loss", metric_keys::kValLoss},
      {"eval/loss", metric_keys::kValLoss},
      {"eval_loss", metric_keys::kValLoss},
      {"validation/loss", metric_keys::kValLoss},
      {"valid/loss", metric_keys::kValLoss},
      {"learning_rate", metric_keys::kLearningRate},
      {"train/learning_rate", metric_keys::kLearningRate},
      {"lr-AdamW", metric_keys::kLearningRate},
      {"grad_norm", metric_keys::kGradNorm},
      {"train/grad_norm", metric_keys::kGradNorm},
      {"optim/total grad norm", metric_keys::kGradNorm},
  };
  if (const auto it = kKnown.find(tag); it != kKnown.end()) return it->second;
  return tag;
}

std::pair<std::string, std::string> splitAssignment(const std::string& text,
                                                    const std::string& flag) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError(flag + " \"" + shownText(text) + "\": expected KEY=VALUE (e.g. " + flag +
                    (flag == "--tag" ? " eval/loss=val/loss" : " arm=vanilla") + ")");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

nlohmann::json optionValueOfText(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  if (!text.empty()) {
    char* end = nullptr;
    const long long i = std::strtoll(text.c_str(), &end, 10);
    if (end && *end == '\0') return i;
    const double d = std::strtod(text.c_str(), &end);
    if (end && *end == '\0' && std::isfinite(d)) return d;
  }
  return text;
}

nlohmann::json unflattenOptions(const nlohmann::json& flat) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : flat.items()) {
    std::vector<std::string> parts;
    for (size_t start = 0;;) {
      const size_t dot = key.find('.', start);
      parts.push_back(
          key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    bool nested = parts.size() > 1;
    for (const auto& part : parts) nested = nested && !part.empty();
    nlohmann::json* node = &out;
    for (size_t i = 0; nested && i + 1 < parts.size(); ++i) {
      nlohmann::json& child = (*node)[parts[i]];
      if (child.is_null()) child = nlohmann::json::object();
      if (!child.is_object()) nested = false;
      node = &child;
    }
    if (nested)
      (*node)[parts.back()] = value;
    else
      out[key] = value;
  }
  return out;
}

namespace {
void flattenInto(const nlohmann::json& node, const std::string& prefix, nlohmann::json& out) {
  for (const auto& [key, value] : node.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object())
      flattenInto(value, name, out);
    else
      out[name] = value;
  }
}
}  // namespace

nlohmann::json flattenOptions(const nlohmann::json& nested) {
  nlohmann::json out = nlohmann::json::object();
  if (nested.is_object()) flattenInto(nested, "", out);
  return out;
}

void mergeOptions(nlohmann::json& base, const nlohmann::json& over) {
  if (!base.is_object() || !over.is_object()) {
    base = over;
    return;
  }
  for (const auto& [key, value] : over.items()) {
    if (value.is_object() && base.contains(key) && base[key].is_object())
      mergeOptions(base[key], value);
    else
      base[key] = value;
  }
}

namespace {

std::optional<double> numberOption(const nlohmann::json& options,
                                   std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    const auto it = options.find(key);
    if (it == options.end()) continue;
    if (it->is_number()) return it->get<double>();
    if (it->is_string()) {
      const nlohmann::json parsed = optionValueOfText(it->get<std::string>());
      if (parsed.is_number()) return parsed.get<double>();
    }
  }
  return std::nullopt;
}

std::optional<std::string> textOption(const nlohmann::json& options, const char* key) {
  const auto it = options.find(key);
  if (it == options.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  return it->dump();
}

}  // namespace

ImportedRunFacts importFacts(const ImportedRun& run, const ImportSettings& settings) {
  const nlohmann::json& o = run.options;
  const std::string where = "run \"" + run.name + "\" (" + run.origin + ")";
  ImportedRunFacts f;
  f.arm = textOption(o, "arm").value_or(settings.default_arm);
  f.size = textOption(o, "size").value_or(run.name.substr(0, kMaxNameLength));
  if (const auto problem = nameProblem(f.arm))
    throw UserError(where + ": arm \"" + shownText(f.arm) + "\" " + *problem + ". " +
                    nameRuleHint());
  if (const auto problem = nameProblem(f.size))
    throw UserError(where + ": size \"" + shownText(f.size) + "\" " + *problem +
                    ". Give each run a size option (e.g. size = \"d12\" in its config.json, or "
                    "--set size=...). " +
                    nameRuleHint());
  if (const auto seed = numberOption(o, {"seed"})) f.seed = static_cast<int64_t>(*seed);

  for (const auto& [key, points] : run.curves)
    for (const auto& p : points) {
      f.last_step = std::max(f.last_step, p.step);
      if (p.wall > 0) {
        f.started = f.started > 0 ? std::min(f.started, p.wall) : p.wall;
        f.finished = std::max(f.finished, p.wall);
      }
    }

  if (const auto loss = numberOption(o, {"final_loss"})) {
    f.final_loss = *loss;
  } else {
    const auto curve = run.curves.find(settings.final_metric);
    std::optional<double> last;
    if (curve != run.curves.end())
      for (auto it = curve->second.rbegin(); it != curve->second.rend() && !last; ++it)
        if (std::isfinite(it->value)) last = it->value;
    if (!last) {
      std::string keys;
      for (const auto& [key, points] : run.curves) keys += (keys.empty() ? "" : ", ") + key;
      throw UserError(
          where + ": no final loss: it has no finite value of \"" + settings.final_metric +
          "\" (its metrics: " + (keys.empty() ? "none" : keys) +
          "). Map the tag holding its validation loss with --tag TAG=" + settings.final_metric +
          ", name another key with --final-metric KEY, or "
          "give final_loss in its options");
    }
    f.final_loss = *last;
  }
  if (!std::isfinite(f.final_loss) || f.final_loss <= 0)
    throw UserError(where + ": final loss " + std::to_string(f.final_loss) +
                    " is not a positive number; a scaling fit needs one per run");

  if (const auto p = numberOption(o, {"params", "n_params", "num_params"}))
    f.params = static_cast<int64_t>(*p);
  if (const auto t = numberOption(o, {"tokens", "total_tokens", "n_tokens"}))
    f.tokens = static_cast<int64_t>(*t);
  if (const auto c = numberOption(o, {"flops", "compute_flops", "compute"}))
    f.flops = *c;
  else if (f.params > 0 && f.tokens > 0)
    f.flops = 6.0 * double(f.params) * double(f.tokens);
  if (!(std::isfinite(f.flops) && f.flops > 0))
    throw UserError(where +
                    ": no training compute: its options give no positive flops (keys "
                    "flops, compute_flops or compute) nor params and tokens (for 6ND). Add "
                    "\"flops\": ... to the config.json next to its event files, or a flops "
                    "column to the CSV");
  return f;
}

std::pair<int64_t, double> rowTokensAndFlops(const ImportedRun& run, const ImportedRunFacts& facts,
                                             int64_t step) {
  const double fraction =
      facts.last_step > 0 ? std::clamp(double(step) / double(facts.last_step), 0.0, 1.0) : 1.0;
  int64_t tokens = static_cast<int64_t>(std::llround(double(facts.tokens) * fraction));
  double flops = facts.flops * fraction;
  if (const auto it = run.tokens_at.find(step); it != run.tokens_at.end())
    tokens = static_cast<int64_t>(std::llround(it->second));
  if (const auto it = run.flops_at.find(step); it != run.flops_at.end()) flops = it->second;
  return {tokens, flops};
}

void checkImportedRunNames(const std::vector<ImportedRun>& runs) {
  std::map<std::string, std::string> seen;
  for (const auto& r : runs) {
    if (const auto problem = nameProblem(r.name, kMaxRunNameLength))
      throw UserError(r.origin + ": run name \"" + shownText(r.name) + "\" " + *problem + ". " +
                      nameRuleHint());
    const auto [it, added] = seen.emplace(r.name, r.origin);
    if (!added)
      throw UserError(r.origin + ": run name \"" + r.name + "\" is also the name of " + it->second +
                      ". Rename one of the two");
  }
}

}  // namespace deepladder::imports
