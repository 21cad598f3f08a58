// The worker protocol: one JSON object a line on the worker's stdout (design.md).
//   hello
//   {"type":"hello","run_id","config_hash","device","resumed_from","params","flops_per_token"}
//   metric     {"type":"metric","step","tokens","flops","wall_s","values":{"train/loss":..}}
//   eval       {"type":"eval","step","task","n_bits","T","correct","total"}
//   lens       {"type":"lens","step","kl":[...]}            (entry l = block l, 0 = embedding)
//   checkpoint {"type":"checkpoint","step","path","sha256"}
//   event      {"type":"event","step","name","detail"}      (growth, re-warm, ...)
//   done
//   {"type":"done","status":"finished"|"diverged","final_loss","steps","tokens","flops","wall_s","message"}
//   error      {"type":"error","message"}
// Qt-free and SQLite-free: the worker and the ingester both link it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/run_status.h"

namespace deepladder::protocol {

struct Hello {
  std::string run_id;
  std::string config_hash;
  std::string device;
  int64_t resumed_from = -1;  // checkpoint step resumed from; -1 = fresh start
  int64_t params = 0;
  double flops_per_token = 0;
};

struct Metric {
  int64_t step = 0;
  int64_t tokens = 0;                                  // tokens trained on so far
  double flops = 0;                                    // training FLOPs so far
  double wall_s = 0;                                   // seconds since this attempt started
  std::vector<std::pair<std::string, double>> values;  // e.g. train/loss, val/loss, lr
};

struct Eval {
  int64_t step = 0;
  std::string task;
  int64_t n_bits = 0;
  int64_t T = 0;
  int64_t correct = 0;
  int64_t total = 0;
};

struct Lens {
  int64_t step = 0;
  std::vector<double> kl;
};

struct Checkpoint {
  int64_t step = 0;
  std::string path;
  std::string sha256;
};

struct Event {
  int64_t step = 0;
  std::string name;
  std::string detail;
};

struct Done {
  RunStatus status = RunStatus::kFinished;  // finished or diverged (sent as its word)
  double final_loss = 0;
  int64_t steps = 0;
  int64_t tokens = 0;
  double flops = 0;
  double wall_s = 0;
  std::string message;
};

struct Error {
  std::string message;
};

using Message = std::variant<Hello, Metric, Eval, Lens, Checkpoint, Event, Done, Error>;

// The worker's own append-only copy of every line it sends, in the run's workdir: what a killed
// scheduler had not yet stored is recovered from it before the run resumes
// (storage/worker_log_replay.h).
inline constexpr const char* kWorkerLogName = "protocol.jsonl";

// One line of JSON, no trailing newline. Never throws (invalid UTF-8 becomes U+FFFD).
std::string encode(const Message& message);

// Parses one line; std::nullopt for a line that is not a protocol message (e.g. stray output, or a
// done whose status is neither finished nor diverged), with `why` set to the reason.
std::optional<Message> decode(const std::string& line, std::string* why = nullptr);

// How many lines decode() has parsed in this process (every line a worker sends is decoded once,
// by the run store's sink; the scheduler passes the typed message on). For tests and benches.
uint64_t decodeCalls();

}  // namespace deepladder::protocol
