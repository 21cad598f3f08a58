// The parsers as a fuzzer sees them: each entry takes raw bytes, feeds them to one parser the way
// the CLI or the worker would, and returns normally (the input was accepted) or throws UserError
// (the input was refused with a message). Anything else escaping, a crash or a hang is a bug.
// Shared by the libFuzzer targets (fuzz_target.cpp, opt-in) and the deterministic mutation test
// in `make test` (mutation_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace deepladder::fuzz {

using FuzzEntry = void (*)(const uint8_t* data, size_t size);

void fuzzLadderToml(const uint8_t* data, size_t size);    // core/ladder: parseLadder
void fuzzRunToml(const uint8_t* data, size_t size);       // core: the run TOML reader (+ JSON)
void fuzzResultsCsv(const uint8_t* data, size_t size);    // fitting: results and sizes CSVs
void fuzzShardHeader(const uint8_t* data, size_t size);   // trainers/data: llm.c shards
void fuzzCheckpoint(const uint8_t* data, size_t size);    // trainers: the checkpoint loader
void fuzzProtocolLine(const uint8_t* data, size_t size);  // core: one worker protocol line

struct FuzzParser {
  const char* name;
  FuzzEntry entry;
};

// Every parser above, by name ("ladder_toml", "run_toml", "results_csv", "shard_header",
// "checkpoint", "protocol_line").
const std::vector<FuzzParser>& fuzzParsers();

// A scratch directory for entries that must go through files (shards, checkpoints), made once
// per process.
const std::string& fuzzScratchDirectory();

}  // namespace deepladder::fuzz
