// The squaring task's files: JSON lines, one example a line, that other tools can read:
//   {"n":323,"x":2,"t":3,"answer":256,"tokens":[2,10,9,10,3,9,4,10],"answer_tokens":[9,12,13]}
// n, x, t, answer are integers (answer = z = x^(2^t) mod n); tokens are the prompt tokens
// (N digits(N) X digits(x) T digits(T)), answer_tokens are digits(z) (vocabulary in tokens.h).
// A tier's directory holds train.jsonl, test.jsonl, ood_t.jsonl, depth_seen.jsonl,
// depth_ood_n.jsonl and manifest.json (tier parameters, seed, counts, sequence-length bounds).
// Every file is written to FILE.tmp and renamed, so a reader never sees half a file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/squaring/dataset.h"

namespace deepladder::squaring {

// One JSON line (no trailing newline).
std::string exampleJsonLine(const Example& e);

// Writes `examples` as JSON lines to `path` (via path.tmp + rename). Throws std::runtime_error
// naming the path when it cannot be written.
void writeExamplesJsonl(const std::string& path, const std::vector<Example>& examples);

// Reads a JSON-lines file. Throws UserError naming path:line and the field when a line is not
// JSON, lacks n, x, t or answer, or is inconsistent (x not in [1, n), t < 0, answer >= n,
// tokens not the prompt of (n, x, t)).
std::vector<Example> readExamplesJsonl(const std::string& path);

struct WrittenFile {
  std::string name;  // e.g. "train.jsonl"
  int64_t examples = 0;
};

// Writes the dataset's files and manifest.json into `directory` (created when missing).
std::vector<WrittenFile> writeTierDataset(const std::string& directory, const TierPreset& tier,
                                          const TierDataset& data);

}  // namespace deepladder::squaring
