// The benchmark's file layout ("--compat reference"), byte for byte as its Python writer lays it
// out (data/counting.py): one file per split, `{split}.jsonl` (train, test, ood, depth_t_{T},
// depth_ood_n_t_{T}), each line json.dumps(record, sort_keys=True) with Python's default
// separators (", " and ": "), records in generation order; and dataset_config.json,
// json.dump(config, indent=2, sort_keys=True) plus a newline. A record:
//   {"configured_modulus_bits": null, "generator_family": "rsa_repeated_squaring",
//    "input_ids": [2, 10, 9, 10, 3, 9, 14, 12, 4, 8], "instance_id":
//    "squaring_mod_bfixed_t1_s45_00000000", "label_exact": true, "label_method": "trapdoor_phi",
//    "labels": [11, 10], "modulus": 323, "modulus_bits": 9, "result": 43, "seed": 45,
//    "split": "train", "time_steps": 1, "x": 275}
// input_ids/labels are the separate layout's prompt and answer digits, or for the causal layout
// BOS prompt ANS answer EOS with labels -100 except on the answer digits and EOS (aligned with
// input_ids, not shifted). dataset_config.json repeats the generator config (output_dir as given,
// the factors "<redacted>"), so it is byte-identical only for the same output_dir string.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/squaring/dataset_io.h"
#include "core/squaring/reference_generator.h"

namespace deepladder::squaring {

// One line (no newline) of record `index` of the generated list.
std::string referenceRecordJson(const ReferenceConfig& config, const ReferenceRecord& record,
                                int64_t index);
void appendReferenceRecordJson(std::string& out, const ReferenceConfig& config,
                               const ReferenceRecord& record, int64_t index);

// dataset_config.json's text (with its final newline).
std::string referenceDatasetConfigJson(const ReferenceConfig& config,
                                       const std::vector<ReferenceRecord>& records);

// Writes every split file and dataset_config.json into `directory` (created when missing; each
// file via FILE.tmp + rename; a stale train/eval/test file of a split with no records is removed,
// as the benchmark does). Returns the files in the order written.
std::vector<WrittenFile> writeReferenceDataset(const std::string& directory,
                                               const ReferenceConfig& config,
                                               const std::vector<ReferenceRecord>& records);

// A parsed line of a benchmark file as an Example. Throws UserError naming `where` and the field
// when modulus, x, time_steps or result is missing or inconsistent, or input_ids/labels are not
// the separate or causal tokens of (modulus, x, time_steps, result).
Example exampleFromReferenceJson(const nlohmann::json& line, const std::string& where);

}  // namespace deepladder::squaring
