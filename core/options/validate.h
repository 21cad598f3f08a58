// The one validation of a run config, on every path: a run file, a ladder's planned runs (before
// anything is queued) and the JSON a worker is handed. It checks every option's range from the
// schema, the rules that span several options, and that the task's trainer honours every option
// that is set (a non-default value of an option the trainer ignores is refused by name).
// Trainers only assert: a config that reached them has passed here.
#pragma once

#include <string>

#include "core/run_config.h"

namespace deepladder::options {

class OptionOrigins;

// Throws UserError for the first problem: "FILE:LINE: KEY: problem. hint" when `origins` knows
// where the offending option was set, else "SOURCE: KEY: problem. hint".
void validateRunConfig(const RunConfig& config, const std::string& source,
                       const OptionOrigins* origins = nullptr);

// What planning computes with before a ladder's budget has set the steps (parameters, FLOPs per
// step): every option's range, the model's rules and a squaring run's tier; the rules between
// options that involve the steps wait for validateRunConfig.
void validatePlanningInputs(const RunConfig& config, const std::string& source,
                            const OptionOrigins* origins = nullptr);

// The same check as a predicate, for the trainers' assertions.
bool isValidRunConfig(const RunConfig& config);

// The row length a squaring config's tier and layout need (the smallest model.seq_len accepted).
// Throws UserError for an unknown tier.
int64_t squaringSeqLenNeeded(const SquaringConfig& squaring);

}  // namespace deepladder::options
