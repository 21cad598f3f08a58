// The training loop of the serial task (RunConfig::task == "squaring"): generates the tier's data
// (core/squaring), builds the baseline or recurrent-depth model (squaring_model.h), trains it
// with AdamW and the recipes of SquaringConfig, and reports as worker-protocol messages:
//   hello; metric train/loss, lr, grad_norm, iterations (r of the batch) every log_every steps;
//   every eval_every steps and at the end: metric val/loss (test-set answer loss),
//   train/exact, test/exact, ood/exact, score (the benchmark's: the mean of test and OOD exact),
//   depth/max_t_seen, depth/max_t_unseen (Max T of the seen-N and OOD-N depth cohorts), and Eval
//   rows per (bits, T) cell of squaring/test, squaring/ood_t, squaring/depth; at the end, for a
//   looped core, the sweep squaring/test@r=R, squaring/ood_t@r=R, squaring/depth@r=R (seen
//   moduli) over eval_passes; a checkpoint every checkpoint_every steps and at the end;
//   done (final_loss = val/loss).
//
// A "token" of this task is one position of a training row: tokens per step = batch_size x
// model.seq_len, the same count the ladder planner's budget rule uses; model.seq_len must hold the
// tier's longest row (promptLengthBound / causalSeqLenBound, e.g. 13 for E1 separate) and rows are
// padded to it. FLOPs per token are core/flop_model.h's for the iterations actually run in the
// step (a looped core counted once per iteration, truncated iterations included).
// squaring.iterations = "per_t" runs a looped core r = model.passes x T times for each example,
// in training (the batch in groups of equal T) and in every evaluation (test, OOD T, depth
// ladder); the final sweep over eval_passes still uses one r for all rows, so it shows where each
// T peaks.
//
// The data are the benchmark's records for (squaring.tier, squaring.data_seed)
// (core/squaring/dataset.h; the benchmark's own files use seed 45), scored as it scores them.
//
// Checkpoints are trainers/checkpoint.h's (atomic, checksummed, keep_checkpoints newest). With
// TrainerOptions::resume the run continues from the newest valid one with the same losses as an
// uninterrupted run: the row order, the iteration counts and the progressive loss's n and k of a
// step are drawn from generators seeded by (seed, step), so they need no saved state.
#pragma once

#include "core/run_config.h"
#include "core/squaring/dataset.h"
#include "trainers/trainer.h"

namespace deepladder::trainers::squaring {

TrainOutcome runSquaringTraining(const RunConfig& config, const TrainerOptions& options,
                                 const MessageSink& emit);

// The same loop on given data instead of the tier's records (positive controls, data read from
// files). The tier of the config still names the seen moduli sizes and T of the maps and the
// depth ladder; model.seq_len must hold the data's rows. Throws UserError for no training rows.
TrainOutcome runSquaringTrainingOn(const RunConfig& config, const TrainerOptions& options,
                                   const MessageSink& emit,
                                   const ::deepladder::squaring::TierDataset& data);

}  // namespace deepladder::trainers::squaring

namespace deepladder::trainers {
using squaring::runSquaringTraining;
}
