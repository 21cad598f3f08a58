// Run statuses as stored words (see run_status.h).
#include "core/run_status.h"

#include <algorithm>

namespace deepladder {
namespace {

struct StatusWord {
  RunStatus status;
  const char* word;
};

// The one table of stored words (a new status: one row here).
constexpr StatusWord kRunStatusWords[] = {
    {RunStatus::kQueued, "queued"},       {RunStatus::kRunning, "running"},
    {RunStatus::kFinished, "finished"},   {RunStatus::kDiverged, "diverged"},
    {RunStatus::kFailed, "failed"},       {RunStatus::kInterrupted, "interrupted"},
    {RunStatus::kCancelled, "cancelled"}, {RunStatus::kStopped, "stopped"},
};

bool among(RunStatus status, std::initializer_list<RunStatus> set) {
  return std::find(set.begin(), set.end(), status) != set.end();
}

}  // namespace

const std::vector<RunStatus>& allRunStatuses() {
  static const std::vector<RunStatus> all = [] {
    std::vector<RunStatus> statuses;
    for (const StatusWord& row : kRunStatusWords) statuses.push_back(row.status);
    return statuses;
  }();
  return all;
}

const char* toString(RunStatus status) {
  for (const StatusWord& row : kRunStatusWords)
    if (row.status == status) return row.word;
  return "failed";  // unreachable: every enumerator has a row
}

std::optional<RunStatus> parseRunStatus(std::string_view word) {
  for (const StatusWord& row : kRunStatusWords)
    if (word == row.word) return row.status;
  return std::nullopt;
}

bool isUnfinished(RunStatus status) {
  return among(status, kUnfinishedRunStatuses);
}

bool isResumable(RunStatus status) {
  return among(status, kResumableRunStatuses);
}

bool isRetryable(RunStatus status) {
  return status == RunStatus::kFailed || status == RunStatus::kCancelled;
}

std::string sqlStatus(RunStatus status) {
  return std::string("'") + toString(status) + "'";
}

std::string sqlStatusList(const std::vector<RunStatus>& statuses) {
  std::string list = "(";
  for (size_t i = 0; i < statuses.size(); ++i) list += (i ? "," : "") + sqlStatus(statuses[i]);
  return list + ")";
}

std::string sqlStatusList(std::initializer_list<RunStatus> statuses) {
  return sqlStatusList(std::vector<RunStatus>(statuses));
}

}  // namespace deepladder
