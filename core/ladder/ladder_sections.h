// The sections of a ladder file that are not run options: [sizes] (an explicit list or a depth
// ladder), [budget] (tokens, tokens per parameter or FLOPs per rung) and [resources] (backend,
// devices, slots, throughput, Slurm), read with the file's own locations for error messages.
// Used by parseLadder (ladder_spec.cpp).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <vector>

#include "core/ladder/ladder_spec.h"
#include "core/ladder/section_choices.h"
#include "core/run_config.h"
#include "core/toml_reader.h"

namespace deepladder::ladder {

struct SizeEntry {
  std::string name;
  toml::table model_overrides;
  std::string where;  // qualified key, for messages
  std::string path;   // the dotted prefix of its model keys ("sizes.list[0]")
};

struct BudgetRule {
  std::string rule = "tokens_per_param";
  double tokens_per_param = 20;
  double tokens = 0;
  std::vector<double> flops;  // one value, or one per rung
};

// [sizes]: each rung's name and model overrides. Throws UserError at the offending key.
std::vector<SizeEntry> readSizes(TomlReader sizes);

// [budget], checked against the number of rungs.
BudgetRule readBudget(TomlReader r, size_t rungs);

// "auto", "cpu" or a comma-separated list of GPU indices ("0,1,3"), each listed once.
bool validDevices(const std::string& devices);

// [resources] with its [resources.slurm] table.
Resources readResources(TomlReader r);

// Tokens a rung's budget asks for (a double: an absurd budget must not overflow on its way to a
// step count; parseLadder refuses it). A "flops" budget buys FLOPs at the config's planned
// FLOPs per token (run_plan.h: growth phases, the squaring trainer's iterations).
double targetTokens(const BudgetRule& b, size_t rung, const RunConfig& config);

// A run of more tokens than this is a slip (1e18 tokens: years on any cluster).
inline constexpr double kMaxRunTokens = 1e18;

// "%.3g" of a token count, for messages.
std::string formatTokenBudget(double tokens);

// The sizes' names, comma-separated and bounded, for messages.
std::string sizeNames(const std::vector<SizeEntry>& sizes);

}  // namespace deepladder::ladder
