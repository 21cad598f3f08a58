// The non-option sections of a ladder file (see ladder_sections.h).
#include "core/ladder/ladder_sections.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/errors.h"
#include "core/flop_model.h"
#include "core/ladder/run_plan.h"
#include "core/names.h"
#include "core/safe_text.h"

namespace deepladder::ladder {

std::vector<SizeEntry> readSizes(TomlReader sizes) {
  std::vector<SizeEntry> out;
  const bool explicit_list = sizes.has("list");
  const bool depth_rule = sizes.has("depths");
  if (explicit_list == depth_rule)
    sizes.fail(explicit_list ? "depths" : "list",
               explicit_list ? "give either an explicit list or a depth ladder, not both"
                             : "no sizes given",
               "add [[sizes.list]] entries (name, d_model, n_layer, n_head) or depths = [..] "
               "with width_per_depth and head_dim");
  if (depth_rule) {
    const std::vector<int64_t> depths = sizes.integers("depths", 1, 1024);
    const int64_t width = sizes.integer("width_per_depth", 64, 1, 1 << 14);
    const int64_t fixed_width = sizes.integer("width", 0, 0, 1 << 16);  // 0: width_per_depth x d
    const int64_t head_dim = sizes.integer("head_dim", 32, 2, 1 << 14);
    if (depths.empty()) sizes.fail("depths", "the depth list is empty", "list at least one depth");
    if (fixed_width > 0 && sizes.has("width_per_depth"))
      sizes.fail("width", "give either a fixed width or width_per_depth, not both",
                 "width = 512 keeps every depth at d_model 512");
    for (int64_t depth : depths) {
      const int64_t d_model = fixed_width > 0 ? fixed_width : width * depth;
      if (d_model % head_dim != 0)
        sizes.fail("head_dim",
                   "d_model " + std::to_string(d_model) + " (depth " + std::to_string(depth) +
                       ") is not divisible by head_dim",
                   "choose head_dim dividing the width (width_per_depth x depth)");
      SizeEntry e;
      e.name = "d" + std::to_string(depth);
      e.model_overrides.insert("d_model", d_model);
      e.model_overrides.insert("n_layer", depth);
      e.model_overrides.insert("n_head", d_model / head_dim);
      e.where = sizes.qualified("depths");
      e.path = e.where;
      out.push_back(std::move(e));
    }
  } else {
    for (TomlReader entry : sizes.tableArray("list")) {
      SizeEntry e;
      e.name = entry.string("name", "");
      if (e.name.empty()) entry.fail("name", "every size needs a name", "add name = \"d64\"");
      checkName(e.name, "size", entry.file(), entry.lineOf("name"), entry.qualified("name"));
      e.model_overrides = entry.raw();
      e.model_overrides.erase("name");
      e.where = entry.qualified("name");
      e.path = entry.qualified("");
      e.path.pop_back();  // "sizes.list[0]." -> "sizes.list[0]"
      for (const auto& [k, v] : e.model_overrides) entry.skip(std::string(k.str()));
      entry.finish();
      out.push_back(std::move(e));
    }
    if (out.empty()) sizes.fail("list", "the size list is empty", "add [[sizes.list]] entries");
  }
  sizes.finish();
  std::set<std::string> names;
  for (const SizeEntry& size : out)
    if (!names.insert(size.name).second)
      throw UserError(size.where + ": size \"" + shownText(size.name) + "\" appears twice");
  return out;
}

const std::vector<std::string>& budgetRuleChoices() {
  static const std::vector<std::string> rules = {"tokens", "tokens_per_param", "flops"};
  return rules;
}

const std::vector<std::string>& resourceBackendChoices() {
  static const std::vector<std::string> backends = {"local", "slurm"};
  return backends;
}

BudgetRule readBudget(TomlReader r, size_t rungs) {
  BudgetRule b;
  b.rule = r.choice("rule", b.rule, budgetRuleChoices());
  b.tokens_per_param = r.number("tokens_per_param", b.tokens_per_param, 1e-6, 1e9);
  b.tokens = r.number("tokens", b.tokens, 0, 1e18);
  if (r.has("flops")) {
    const toml::node* node = r.raw().get("flops");
    if (node->is_array()) {
      for (const auto& v : *node->as_array()) {
        auto d = v.value<double>();
        if (!d || !std::isfinite(*d) || *d < 1 || *d > 1e30)
          r.fail("flops", "every FLOP budget must be a number from 1 to 1e30",
                 "give each rung its training FLOPs, e.g. 1e15");
        b.flops.push_back(*d);
      }
      r.skip("flops");
    } else {
      b.flops.push_back(r.number("flops", 0, 1, 1e30));
    }
  }
  if (b.rule == "tokens" && b.tokens <= 0)
    r.fail("tokens", "rule \"tokens\" needs tokens = N (tokens per run)");
  if (b.rule == "flops") {
    if (b.flops.empty()) r.fail("flops", "rule \"flops\" needs flops = X or a list per rung");
    if (b.flops.size() != 1 && b.flops.size() != rungs)
      r.fail("flops",
             "the FLOP list has " + std::to_string(b.flops.size()) + " entries for " +
                 std::to_string(rungs) + " sizes",
             "give one budget, or one per size in the order of [sizes]");
  }
  r.finish();
  return b;
}

bool validDevices(const std::string& devices) {
  if (devices == "auto" || devices == "cpu") return true;
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= devices.size()) {
    const size_t comma = std::min(devices.find(',', start), devices.size());
    const std::string index = devices.substr(start, comma - start);
    if (index.empty() || index.size() > 4 ||
        !std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        !seen.insert(index).second)
      return false;
    start = comma + 1;
  }
  return true;
}

Resources readResources(TomlReader r) {
  Resources res;
  res.backend = r.choice("backend", res.backend, resourceBackendChoices());
  res.devices = r.string("devices", res.devices);
  if (!validDevices(res.devices))
    r.fail("devices", "\"" + shownText(res.devices) + "\" is not a device list",
           "use \"auto\", \"cpu\" or GPU indices such as \"0,1\"");
  res.slots = r.integer("slots", res.slots, 0, 4096);
  res.threads_per_slot = r.integer("threads_per_slot", res.threads_per_slot, 0, 4096);
  res.peer_timeout_s = r.number("peer_timeout_s", res.peer_timeout_s, 1.0, 86400.0);
  res.retries = r.integer("retries", res.retries, 0, 100);
  res.heartbeat_timeout_s = r.number("heartbeat_timeout_s", res.heartbeat_timeout_s, 1, 1e7);
  res.throughput_flops = r.number("throughput_flops", res.throughput_flops, 1, 1e20);
  res.peak_flops = r.number("peak_flops", res.peak_flops, 1, 1e20);
  res.fp32_peak_flops = r.number("fp32_peak_flops", res.fp32_peak_flops, 1, 1e20);
  res.mfu = r.number("mfu", res.mfu, 1e-6, 1);
  res.device_memory_gb = r.number("device_memory_gb", res.device_memory_gb, 1e-3, 1e6);
  TomlReader s = r.table("slurm");
  res.slurm.partition = s.string("partition", res.slurm.partition);
  res.slurm.time_limit = s.string("time", res.slurm.time_limit);
  res.slurm.cpus_per_task = s.integer("cpus_per_task", res.slurm.cpus_per_task, 1, 4096);
  res.slurm.gpus_per_task = s.integer("gpus_per_task", res.slurm.gpus_per_task, 0, 64);
  res.slurm.workdir = s.string("workdir", res.slurm.workdir);
  res.slurm.extra = s.strings("extra");
  for (const auto& option : res.slurm.extra)
    if (option.rfind("--", 0) != 0)
      s.fail("extra", "\"" + option + "\" is not an sbatch option",
             "write options as \"--key=value\"");
  s.finish();
  r.finish();
  return res;
}

double targetTokens(const BudgetRule& b, size_t rung, const RunConfig& config) {
  double tokens = 0;
  if (b.rule == "tokens") tokens = b.tokens;
  if (b.rule == "tokens_per_param")
    tokens = b.tokens_per_param * static_cast<double>(countParameters(config.model).total);
  if (b.rule == "flops")
    tokens = (b.flops.size() == 1 ? b.flops[0] : b.flops[rung]) / plannedFlopsPerToken(config);
  return tokens;
}

std::string formatTokenBudget(double tokens) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", tokens);
  return text;
}

std::string sizeNames(const std::vector<SizeEntry>& sizes) {
  std::string out;
  for (const auto& s : sizes) out += (out.empty() ? "" : ", ") + s.name;
  return boundedText(out, 300);
}

}  // namespace deepladder::ladder
