// A standby worker's run assignment: the one JSON line the local backend writes on the stdin of
// a pre-started `deepladder-worker --standby` (LibTorch loaded, no thread started), which makes
// it that run's worker. It carries the worker's arguments (as for a cold launch, without the
// program), the per-run environment to set before anything reads it, and the file its stderr
// goes to. Shared by the backend (encode) and the worker (decode) so the two cannot drift.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace deepladder {

// The line a standby prints on stdout once it is loaded and waits for its assignment.
inline constexpr const char* kStandbyReadyLine = R"({"standby":"ready"})";

struct WorkerAssignment {
  std::vector<std::string> args;           // --config ... --run-id ... (no program name)
  std::map<std::string, std::string> env;  // set with setenv before the run starts
  std::string stderr_path;                 // "" = keep the standby's stderr
};

std::string encodeAssignment(const WorkerAssignment& assignment);  // one line, no newline
// Throws UserError naming what is wrong with the line.
WorkerAssignment decodeAssignment(const std::string& line);

// True for a variable that a process reads while its libraries load (OpenMP, the allocator, the
// dynamic loader): too late to set in a standby, so a run that needs a different value of one is
// launched cold instead.
bool readAtLoadTime(const std::string& variable);

}  // namespace deepladder
