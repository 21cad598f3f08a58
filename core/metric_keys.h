// The names of the metrics a worker reports (protocol::Metric values, the metrics table's `key`),
// written here once: the trainers emit them, storage, the CLI and the workbench read them back.
#pragma once

namespace deepladder::metric_keys {

// Every trainer, every log_every steps.
inline constexpr const char* kTrainLoss = "train/loss";
inline constexpr const char* kLearningRate = "lr";
inline constexpr const char* kGradNorm = "grad_norm";
inline constexpr const char* kTokensPerSecond = "tokens_per_s";  // since the previous log line

// Every trainer, every eval_every steps (and once at the end).
inline constexpr const char* kValLoss = "val/loss";

// Language-model trainer only.
inline constexpr const char* kPeakMemoryGb = "peak_memory_gb";    // decimal GB
inline constexpr const char* kCommSeconds = "comm_s";             // data-parallel collectives
inline constexpr const char* kLensCostSteps = "lens/cost_steps";  // logit lens, in train steps

// Curve predictions (fitting/curve_prediction.h), written by the ladder's scheduler process at
// the step a prediction was made: the predicted final validation loss and its 95% prediction
// interval.
inline constexpr const char* kPredictedFinalLoss = "pred/final_loss";
inline constexpr const char* kPredictedFinalLossLo = "pred/final_loss_lo";
inline constexpr const char* kPredictedFinalLossHi = "pred/final_loss_hi";

// `deepladder eval --depth`: val loss at each core pass count K' (step = K').
inline constexpr const char* kValLossAtPasses = "val/loss@passes";

// Squaring trainer.
inline constexpr const char* kTrainExact = "train/exact";
inline constexpr const char* kTestExact = "test/exact";
inline constexpr const char* kOodExact = "ood/exact";
inline constexpr const char* kScore = "score";
inline constexpr const char* kDepthMaxTSeen = "depth/max_t_seen";
inline constexpr const char* kDepthMaxTUnseen = "depth/max_t_unseen";
inline constexpr const char* kIterations = "iterations";

}  // namespace deepladder::metric_keys
