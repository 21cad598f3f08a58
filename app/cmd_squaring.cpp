// `deepladder squaring generate --tier E1 --out DIR [--seed S] [--compat native|reference]`:
// writes a tier's squaring-task data ("One Layer Deeper"). The records are the public
// benchmark's for that tier and seed either way; --compat picks the layout: native (default)
// writes train, test, ood_t, depth_seen, depth_ood_n and a manifest (core/squaring/dataset_io.h),
// reference writes the benchmark's own files byte for byte (core/squaring/reference_io.h). A
// positive-control tier (C1, core/squaring/control_tiers.h) has no benchmark counterpart: native
// layout only.
// Other `squaring` subcommands (e.g. `eval`) attach themselves with a registrar of order > 70:
// cli.get_subcommand("squaring")->add_subcommand(...).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/squaring/control_tiers.h"
#include "core/squaring/dataset.h"
#include "core/squaring/dataset_io.h"
#include "core/squaring/reference_io.h"
#include "core/squaring/tiers.h"

namespace deepladder::app {
namespace {

struct GenerateOptions {
  std::string tier;
  std::string out;
  uint64_t seed = 0;
  std::string compat = "native";
};

int runGenerate(const GenerateOptions& options) {
  if (options.out.empty())  // "" would write the tier's files into the current folder
    throw UserError("--out: the path is empty; give the folder to write the tier's files into");
  const squaring::TierPreset& tier = squaring::tierPreset(options.tier);  // UserError lists tiers
  const squaring::Compat compat = squaring::parseCompat(options.compat);
  if (compat == squaring::Compat::kReference && squaring::isControlTier(tier))
    throw UserError("--tier " + tier.name +
                    " is deepladder's positive control, which the benchmark has no files for: "
                    "use --compat native");
  std::vector<squaring::WrittenFile> written;
  if (compat == squaring::Compat::kReference) {
    const auto config = squaring::referenceConfig(tier, options.seed, options.out);
    written = squaring::writeReferenceDataset(options.out, config,
                                              squaring::generateReferenceRecords(config));
  } else {
    const squaring::TierDataset data = squaring::generateTierDataset(tier, options.seed);
    written = squaring::writeTierDataset(options.out, tier, data);
  }
  std::printf("squaring tier %s (%s, %s), seed %llu, %s layout -> %s\n", tier.name.c_str(),
              tier.difficulty.c_str(), tier.budget.c_str(),
              static_cast<unsigned long long>(options.seed), squaring::compatName(compat),
              options.out.c_str());
  for (const auto& file : written)
    if (file.name != "manifest.json" && file.name != "dataset_config.json")
      std::printf("  %-24s %10lld examples\n", file.name.c_str(),
                  static_cast<long long>(file.examples));
  return 0;
}

CommandRegistrar register_squaring("squaring", 70, [](CLI::App& cli) {
  CLI::App* cmd = cli.add_subcommand(
      "squaring",
      "Repeated squaring mod a semiprime (the One Layer Deeper task): data, evaluation");
  cmd->require_subcommand(1);
  auto options = std::make_shared<GenerateOptions>();
  CLI::App* generate = cmd->add_subcommand(
      "generate",
      "Write a tier's train/test/OOD/depth-ladder sets (the benchmark's records) into a directory");
  std::string tiers;
  for (const auto& name : squaring::tierNames()) tiers += (tiers.empty() ? "" : ", ") + name;
  std::string controls;
  for (const auto& t : squaring::controlTierPresets())
    controls += (controls.empty() ? "" : ", ") + t.name;
  generate
      ->add_option("--tier", options->tier,
                   "Tier preset: " + tiers +
                       "; or a positive control (depth extrapolation that "
                       "is learnable, not a benchmark tier): " +
                       controls)
      ->required();
  generate->add_option("--out", options->out, "Output directory (created when missing)")
      ->required();
  generate->add_option("--seed", options->seed, "Random seed (same seed, same files)")
      ->capture_default_str();
  generate
      ->add_option("--compat", options->compat,
                   "File layout: native (deepladder's JSON lines + manifest.json) or reference "
                   "(the benchmark's files, byte for byte)")
      ->capture_default_str();
  generate->callback([options] { commandExitCode() = runGenerate(*options); });
});

}  // namespace
}  // namespace deepladder::app
