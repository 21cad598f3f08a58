// Lens profiles and labels of one run for the plots (see run_plot_data.h).
#include "storage/run_plot_data.h"

#include <limits>

namespace deepladder::storage {

std::vector<LensProfile> lensProfiles(Database& db, int64_t run_id) {
  std::vector<LensProfile> profiles;
  for (const LensRow& row : db.lens(run_id)) {
    if (profiles.empty() || profiles.back().step != row.step) profiles.push_back({row.step, {}});
    auto& kl = profiles.back().kl;
    if (row.block >= 0) {
      if (static_cast<size_t>(row.block) >= kl.size())
        kl.resize(static_cast<size_t>(row.block) + 1, std::numeric_limits<double>::quiet_NaN());
      kl[static_cast<size_t>(row.block)] = row.kl;
    }
  }
  return profiles;
}

std::string runLabel(Database& db, int64_t run_id) {
  const auto run = db.run(run_id);
  if (!run) return "run #" + std::to_string(run_id);
  std::string label = run->name;
  if (!run->arm.empty() && run->arm != "single" && run->name.rfind(run->arm, 0) != 0)
    label = run->arm + "/" + label;
  return label + " #" + std::to_string(run_id);
}

}  // namespace deepladder::storage
