// `deepladder squaring generate --tier E1 --out DIR [--seed S]`: writes a tier's squaring-task
// data ("One Layer Deeper") as JSON lines: train, test, ood_t, depth_seen, depth_ood_n and a
// manifest (see core/squaring/dataset_io.h). Other `squaring` subcommands (e.g. `eval`) attach
// themselves with a registrar of order > 70: cli.get_subcommand("squaring")->add_subcommand(...).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "app/command_registry.h"
#include "core/squaring/dataset.h"
#include "core/squaring/dataset_io.h"
#include "core/squaring/tiers.h"

namespace deepladder::app {
namespace {

struct GenerateOptions {
  std::string tier;
  std::string out;
  uint64_t seed = 0;
};

int runGenerate(const GenerateOptions& options) {
  const squaring::TierPreset& tier = squaring::tierPreset(options.tier);  // UserError lists tiers
  const squaring::TierDataset data = squaring::generateTierDataset(tier, options.seed);
  const auto written = squaring::writeTierDataset(options.out, tier, data);
  std::printf("squaring tier %s (%s, %s), seed %llu -> %s\n", tier.name.c_str(),
              tier.difficulty.c_str(), tier.budget.c_str(),
              static_cast<unsigned long long>(options.seed), options.out.c_str());
  for (const auto& file : written)
    if (file.name != "manifest.json")
      std::printf("  %-18s %10lld examples\n", file.name.c_str(),
                  static_cast<long long>(file.examples));
  return 0;
}

CommandRegistrar reg("squaring", 70, [](CLI::App& cli) {
  CLI::App* cmd = cli.add_subcommand(
      "squaring",
      "Repeated squaring mod a semiprime (the One Layer Deeper task): data, evaluation");
  cmd->require_subcommand(1);
  auto options = std::make_shared<GenerateOptions>();
  CLI::App* generate = cmd->add_subcommand(
      "generate", "Write a tier's train/test/OOD/depth-ladder sets as JSON lines into a directory");
  std::string tiers;
  for (const auto& name : squaring::tierNames()) tiers += (tiers.empty() ? "" : ", ") + name;
  generate->add_option("--tier", options->tier, "Tier preset: " + tiers)->required();
  generate->add_option("--out", options->out, "Output directory (created when missing)")
      ->required();
  generate->add_option("--seed", options->seed, "Random seed (same seed, same files)")
      ->capture_default_str();
  generate->callback([options] { commandExitCode() = runGenerate(*options); });
});

}  // namespace
}  // namespace deepladder::app
