// Model growth and the learning-rate re-warm (see growth.h).
#include "trainers/growth.h"

#include "core/architecture.h"
#include "trainers/wsd_schedule.h"

namespace deepladder::trainers {

double rewarmFactor(const ModelConfig& model, int64_t total_steps, int64_t step) {
  const int64_t crossover = growthStep(model, total_steps);
  if (crossover < 0 || model.rewarm_steps <= 0) return 1.0;
  return growthRewarmMultiplier(step, crossover, model.rewarm_steps);
}

std::string growModelAndOptimizer(GPT& model, std::unique_ptr<AdamW>& optimizer,
                                  const AdamWOptions& options) {
  const std::string detail = model->grow();
  auto grown = std::make_unique<AdamW>(model->parameters(), options);
  if (optimizer) grown->inheritState(*optimizer);
  optimizer = std::move(grown);
  return detail;
}

}  // namespace deepladder::trainers
