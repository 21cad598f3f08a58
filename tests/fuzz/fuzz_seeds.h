// Seed inputs for each fuzzed parser: the ladder and run files in resources/ as shipped, and for
// the formats resources/ has no file of, inputs made here the way the program makes them (a
// results CSV of a ladder and a Chinchilla CSV, an llm.c shard from data::writeShard, a
// checkpoint from trainers::saveCheckpoint of a tiny GPT, one protocol line of every type).
#pragma once

#include <string>
#include <vector>

namespace deepladder::fuzz {

// Seeds for fuzzParsers()'s `parser`; every one of them is accepted by its parser.
std::vector<std::string> seedsFor(const std::string& parser);

}  // namespace deepladder::fuzz
