// The examples a squaring run trains and is evaluated on, from its config: the files of
// squaring.data_dir (either layout, core/squaring/dataset_io.h) when it is set, else the tier's
// data generated from squaring.data_seed. The trainer and everything that recomputes a run's
// chance levels and composition ceilings read the data through this one function.
#pragma once

#include "core/run_config.h"
#include "core/squaring/dataset.h"

namespace deepladder::squaring {

// Throws UserError naming squaring.data_dir when its files cannot be read or hold another tier
// than squaring.tier.
TierDataset runDataset(const SquaringConfig& config);

}  // namespace deepladder::squaring
