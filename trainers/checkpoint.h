// Checkpoints: <workdir>/ckpt-<step>.pt holds the model parameters, the optimizer state (AdamW
// moments and step count, or the recipe's Muon + AdamW group state), the training counters, the
// sampler position and epoch size, the torch CPU RNG state and the config hash. Each is written
// atomically (temp file, fsync, rename, fsync of the directory) with its SHA-256 in a sidecar
// ckpt-<step>.sha256 (sha256sum format), so a torn or corrupt file is found before a resume trusts
// it; the newest valid checkpoint with a matching config hash wins. The optimizer is the run's
// (trainers/run_optimizer.h) for both trainers; loading into a GPT follows its growth phase, a
// model without growth (the squaring trainer's) refuses checkpoints saved after growth.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trainers/gpt.h"
#include "trainers/run_optimizer.h"

namespace deepladder::trainers {

// Everything besides the tensors that a resume needs to continue exactly.
struct TrainingState {
  int64_t step = 0;              // optimizer updates done
  int64_t tokens = 0;            // tokens trained on so far
  double flops = 0;              // training FLOPs so far
  int64_t sampler_position = 0;  // data::BatchSampler::position()
  // data::BatchSampler::epochWindows() of the run that wrote it: a resume over data cut into a
  // different number of windows would read another permutation. 0 = not recorded (older files).
  int64_t sampler_windows = 0;
  std::string config_hash;
  bool grown = false;  // the model has grown; absent in old files = false
};

struct CheckpointRecord {
  int64_t step = 0;
  std::string path;    // the .pt file
  std::string sha256;  // of the .pt file
};

std::string checkpointPath(const std::string& workdir, int64_t step);

// Writes ckpt-<step>.pt and its .sha256 sidecar atomically: `model`'s parameters, `optimizer`'s
// state and `state` (its `grown` flag included). Throws std::runtime_error naming the path on an
// I/O failure.
CheckpointRecord saveCheckpoint(const std::string& workdir, torch::nn::Module& model,
                                const RunOptimizer& optimizer, const TrainingState& state);

// Checkpoint files in `workdir`, newest (highest step) first.
std::vector<CheckpointRecord> listCheckpoints(const std::string& workdir);

// Deletes all but the newest `keep` checkpoints (and their sidecars).
void pruneCheckpoints(const std::string& workdir, int64_t keep);

// Loads the newest checkpoint that verifies (sidecar present, checksum matches, loads cleanly,
// config hash equals `config_hash`, any hash when it is empty) into `model` and `optimizer`. Every
// checkpoint passed over is described in `skipped` (path and reason). std::nullopt when none is
// usable (model and optimizer are then untouched). A growing GPT is grown (and its optimizer
// rebuilt, RunOptimizer::grow) to the phase a verified checkpoint was saved in before its tensors
// are read; a checkpoint saved before growth is skipped by a model that has grown already.
std::optional<TrainingState> loadNewestValidCheckpoint(const std::string& workdir,
                                                       const std::string& config_hash, GPT& model,
                                                       RunOptimizer& optimizer,
                                                       std::vector<std::string>* skipped);
// For a model without growth: a checkpoint saved after growth is skipped.
std::optional<TrainingState> loadNewestValidCheckpoint(const std::string& workdir,
                                                       const std::string& config_hash,
                                                       torch::nn::Module& model,
                                                       RunOptimizer& optimizer,
                                                       std::vector<std::string>* skipped);

// The model alone (no optimizer state) from checkpoint `step`, or from the newest one that
// verifies when `step` is nullopt, under the same checks; a GPT saved after growth is grown first.
// For export (trainers/weights_export.h). std::nullopt when no such checkpoint verifies.
std::optional<TrainingState> loadCheckpointWeights(const std::string& workdir,
                                                   const std::string& config_hash, GPT& model,
                                                   std::optional<int64_t> step,
                                                   std::vector<std::string>* skipped);

}  // namespace deepladder::trainers
