// The squaring task's files, in two layouts of the same records:
// - native ("--compat native", deepladder's own): JSON lines, one example a line,
//     {"n":323,"x":2,"t":3,"answer":256,"tokens":[2,10,9,10,3,9,4,10],"answer_tokens":[9,12,13]}
//   n, x, t, answer are integers (answer = z = x^(2^t) mod n); tokens are the prompt tokens
//   (N digits(N) X digits(x) T digits(T)), answer_tokens are digits(z) (vocabulary in tokens.h).
//   A tier's directory holds train.jsonl, test.jsonl, ood_t.jsonl, depth_seen.jsonl,
//   depth_ood_n.jsonl and manifest.json (tier parameters, seed, counts, sequence-length bounds).
// - reference ("--compat reference"): the public benchmark's files, byte for byte
//   (reference_io.h): train.jsonl, test.jsonl, ood.jsonl, depth_t_{T}.jsonl,
//   depth_ood_n_t_{T}.jsonl and dataset_config.json.
// Readers take either: readExamplesJsonl reads a line of either kind, readTierDirectory a
// directory of either layout. Every file is written to FILE.tmp and renamed, so a reader never
// sees half a file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/squaring/dataset.h"

namespace deepladder::squaring {

// The two layouts ("native" | "reference"); UserError otherwise.
enum class Compat { kNative, kReference };
Compat parseCompat(const std::string& name);
const char* compatName(Compat compat);

// Writes `text` to path.tmp and renames it to `path`. Throws std::runtime_error naming the path.
void writeTextAtomically(const std::string& path, const std::string& text);

// One JSON line (no trailing newline).
std::string exampleJsonLine(const Example& e);

// Writes `examples` as JSON lines to `path` (via path.tmp + rename). Throws std::runtime_error
// naming the path when it cannot be written.
void writeExamplesJsonl(const std::string& path, const std::vector<Example>& examples);

// Reads a JSON-lines file of either layout (a line with "modulus" is a benchmark record). Throws
// UserError naming path:line and the field when a line is not JSON, lacks n, x, t or answer
// (modulus, x, time_steps, result), or is inconsistent (x not in [1, n), answer >= n, tokens
// not the prompt of (n, x, t)).
std::vector<Example> readExamplesJsonl(const std::string& path);

struct WrittenFile {
  std::string name;  // e.g. "train.jsonl"
  int64_t examples = 0;
};

// Reads a tier directory of either layout: native (manifest.json) or reference
// (dataset_config.json; the depth files in ascending T). The tier is the manifest's, or for the
// reference layout the preset whose moduli and T match the generator config ("" when none does).
// Throws UserError naming the directory or file when neither config file is there or a file is
// missing or malformed.
TierDataset readTierDirectory(const std::string& directory);

// Writes the dataset's files and manifest.json into `directory` (created when missing).
std::vector<WrittenFile> writeTierDataset(const std::string& directory, const TierPreset& tier,
                                          const TierDataset& data);

}  // namespace deepladder::squaring
