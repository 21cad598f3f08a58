// Data-parallel hooks of the training loop (see data_parallel.h).
#include "trainers/data_parallel.h"

#include <cstdlib>

#include "core/errors.h"

namespace deepladder::trainers {

namespace {

std::chrono::milliseconds timeoutFromEnvironment() {
  const char* text = std::getenv("DEEPLADDER_DIST_TIMEOUT_S");
  if (!text || !*text) return std::chrono::minutes(5);
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds > 0))
    throw UserError(std::string("DEEPLADDER_DIST_TIMEOUT_S=\"") + text +
                    "\" is not a positive number of seconds");
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

}  // namespace

DataParallel DataParallel::join(const std::string& device) {
  const auto where = distributed::rendezvousFromEnvironment();
  distributed::DistributedOptions options;
  options.timeout = timeoutFromEnvironment();
  options.device = device;
  return DataParallel(distributed::DistributedContext::connect(where, options));
}

DataParallel::DataParallel(std::unique_ptr<distributed::DistributedContext> context)
    : context_(std::move(context)) {}

std::string DataParallel::deviceFor(const std::string& configured) const {
  if (!active() || configured.rfind("cuda", 0) != 0) return configured;
  return "cuda:" + std::to_string(distributed::deviceIndexForRank(
                       context_->localRank(), static_cast<int>(torch::cuda::device_count())));
}

BatchOrthogonalizer DataParallel::muonOrthogonalizer() const {
  if (!active()) return {};
  distributed::DistributedContext* context = context_.get();
  return [context](const std::vector<torch::Tensor>& batches, const MatrixMap& orthogonalize) {
    distributed::shardedApply(*context, batches, orthogonalize);
  };
}

std::string DataParallel::describe() const {
  return std::to_string(worldSize()) + " ranks (" + context_->backendName() + ")";
}

torch::Tensor DataParallel::localRows(const torch::Tensor& global_batch) const {
  const auto slice = distributed::rowsForRank(global_batch.size(0), rank(), worldSize());
  if (!active()) return global_batch;
  return global_batch.narrow(0, slice.begin, slice.count);
}

std::function<void(const protocol::Message&)> DataParallel::rootOnly(
    std::function<void(const protocol::Message&)> emit) const {
  if (isRoot()) return emit;
  return [](const protocol::Message&) {};
}

void DataParallel::requireReplicasEqual(const std::vector<torch::Tensor>& parameters,
                                        const TrainingState& state, const std::string& when) {
  if (!active()) return;
  const auto counters =
      torch::tensor({state.step, state.tokens, state.sampler_position,
                     static_cast<int64_t>(std::hash<std::string>{}(state.config_hash))},
                    torch::kInt64);
  context_->requireEqualAcrossRanks({counters}, "training step, tokens, data position or config " +
                                                    when +
                                                    " (is the workdir shared by all ranks?)");
  context_->requireEqualAcrossRanks(parameters, "model parameters " + when);
}

}  // namespace deepladder::trainers
