// Runs trained elsewhere, as `deepladder import` reads them from TensorBoard log directories
// (tb_logdir.h) or from a CSV with named columns (metrics_csv.h), before they are stored: each
// run's options (a JSON object) and its curves by deepladder metric key. Also what the two readers
// share: the tag -> metric key map, `--set key=value`, and the run facts a fit needs (arm, size,
// seed, final loss, training FLOPs, parameters, tokens), derived here from the options and the
// curves by one set of rules, so both sources import alike.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace deepladder::imports {

struct ImportedPoint {
  int64_t step = 0;
  double value = 0;
  double wall = 0;  // unix seconds (0 when the source has none)
};

struct ImportedRun {
  std::string name;    // the run's name in deepladder (core/names.h rules)
  std::string origin;  // where it came from (a directory, or FILE:LINE of its first CSV row)
  nlohmann::json options = nlohmann::json::object();
  std::map<std::string, std::vector<ImportedPoint>> curves;  // key -> points by step, unique steps
  // Per-step tokens and FLOPs when the source logged them (export-tb's deepladder/tokens and
  // deepladder/flops tags); otherwise rows get them by linear interpolation of the run's totals.
  std::map<int64_t, double> tokens_at, flops_at;
};

// What a fit and `status` need of a run, from importFacts().
struct ImportedRunFacts {
  std::string arm, size;
  int64_t seed = 0;
  double final_loss = 0;
  double flops = 0;    // training FLOPs of the whole run
  int64_t params = 0;  // 0 when unknown
  int64_t tokens = 0;  // 0 when unknown
  int64_t last_step = 0;
  double started = 0, finished = 0;  // first and last wall time (0 when none)
};

// How the options and tags of the runs map onto deepladder's.
struct ImportSettings {
  // TensorBoard tag or CSV metric name -> metric key ("" drops it). Names not listed keep their
  // own name unless defaultMetricKey() knows them.
  std::map<std::string, std::string> tag_map;
  nlohmann::json set_options = nlohmann::json::object();  // --set, over every run's own options
  std::string final_metric;  // the key whose last value is the final loss (default: val/loss)
  std::string default_arm;   // arm of runs whose options name none
};

ImportSettings defaultImportSettings();

// The metric key a tag is stored under: the settings' map first, then the spellings of common
// trainers (e.g. "loss", "train_loss", "train/CE loss" -> train/loss; "val_loss", "eval/loss",
// "validation/loss" -> val/loss; "learning_rate" -> lr), else the tag itself.
std::string metricKeyOfTag(const ImportSettings& settings, const std::string& tag);

// "key=value" of --set / --tag into (key, value); UserError naming the flag when there is no '='.
std::pair<std::string, std::string> splitAssignment(const std::string& text,
                                                    const std::string& flag);
// A --set value as JSON: a number, true/false, else the text as a string.
nlohmann::json optionValueOfText(const std::string& text);

// Dotted keys ("model.n_layer") become nested objects ({"model": {"n_layer": ...}}); a key whose
// path runs into a non-object value stays as it is.
nlohmann::json unflattenOptions(const nlohmann::json& flat);
// The reverse, for writers of flat maps (TensorBoard hparams): nested objects become dotted keys.
nlohmann::json flattenOptions(const nlohmann::json& nested);
// Merges `over` onto `base` (objects recursively, anything else replaced).
void mergeOptions(nlohmann::json& base, const nlohmann::json& over);

// The run's facts, by these rules (the options' top-level keys):
//  arm: "arm", else settings.default_arm; size: "size", else the run's name; seed: "seed", else 0;
//  final loss: "final_loss", else the last finite value of settings.final_metric;
//  FLOPs: "flops", "compute_flops" or "compute", else 6 * params * tokens;
//  params: "params", "n_params" or "num_params"; tokens: "tokens", "total_tokens" or "n_tokens".
// Throws UserError naming the run and its origin, with what to add, when the final loss or the
// FLOPs cannot be found or are not positive and finite.
ImportedRunFacts importFacts(const ImportedRun& run, const ImportSettings& settings);

// Tokens and FLOPs of a row at `step`: the logged per-step values when the run has them, else the
// run's totals scaled by step / last_step (exact for a constant batch size).
std::pair<int64_t, double> rowTokensAndFlops(const ImportedRun& run, const ImportedRunFacts& facts,
                                             int64_t step);

// Checks the names the runs will be stored under (core/names.h) and that no two are equal.
void checkImportedRunNames(const std::vector<ImportedRun>& runs);

}  // namespace deepladder::imports
