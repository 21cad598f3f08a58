// A squaring run's data from its config (see run_dataset.h).
#include "core/squaring/run_dataset.h"

#include <string>

#include "core/errors.h"
#include "core/squaring/dataset_io.h"
#include "core/squaring/tiers.h"

namespace deepladder::squaring {

TierDataset runDataset(const SquaringConfig& config) {
  const TierPreset& tier = tierPreset(config.tier);
  if (config.data_dir.empty())
    return generateTierDataset(tier, static_cast<uint64_t>(config.data_seed));
  TierDataset data;
  try {
    data = readTierDirectory(config.data_dir);
  } catch (const UserError& e) {
    throw UserError("squaring.data_dir: " + std::string(e.what()));
  }
  if (!data.tier.empty() && tierPreset(data.tier).name != tier.name)
    throw UserError("squaring.data_dir " + config.data_dir + " holds tier " + data.tier +
                    " but squaring.tier is " + tier.name + ": set tier = \"" + data.tier + "\"");
  return data;
}

}  // namespace deepladder::squaring
