// The block structure a ModelConfig describes, without LibTorch: how n_layer blocks split into
// prelude / core / coda, how many distinct blocks exist and how many run per token before and
// after growth, and the named arm presets of the depth-architecture ladders.
//
// Split (n_layer = p + c + o): thirds; when n_layer is not divisible by 3 the extra block goes to
// the core first, then to the coda (8 -> 2/3/3, 10 -> 3/4/3, 16 -> 5/6/5).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/run_config.h"

namespace deepladder {

struct BlockSplit {
  int64_t prelude = 0;
  int64_t core = 0;
  int64_t coda = 0;
};

BlockSplit splitPreludeCoreCoda(int64_t n_layer);

// Distinct blocks and blocks run per token, in one growth phase.
struct PhaseShape {
  int64_t passes = 1;           // K (pcc) or 1 (vanilla)
  int64_t distinct_blocks = 0;  // parameters exist for these
  int64_t executed_blocks = 0;  // applied per token (a tied core counts once per pass)
};

struct ArchitectureShape {
  bool pcc = false;
  BlockSplit split;   // pcc only
  PhaseShape before;  // from step 0
  PhaseShape after;   // after growth (== before without growth)
  bool grows = false;
};

ArchitectureShape architectureShape(const ModelConfig& model);

// Crossover step c = int(grow_fraction x steps) for growing models; -1 without growth.
int64_t growthStep(const ModelConfig& model, int64_t steps);

// Where a plain stack grows (n_layer -> grow_layers, g = grow_layers - n_layer new blocks): the
// middle section of s = min(g, n_layer) blocks starting at block p = (n_layer - s) / 2 is
// duplicated in place, so the grown stack runs blocks 0 .. p+s-1, then the g copies (copy i of
// block p + i mod s), then blocks p+s .. n_layer-1. For deep_vanilla_grow (p+2c+o -> p+4c+o
// blocks, s = 2c) that is prelude, the two core sections, their copies, coda: the order
// untied_grow gives its cores (core j a copy of core j mod 2). With g >= n_layer the copies
// follow the last block (copy i of block i mod n_layer).
struct StackSlot {
  int64_t source = 0;  // index of the block (before growth) this slot is, or is a copy of
  bool copy = false;   // a new block, initialised as a copy of `source`
};
// The grown stack, slot by slot (grow_layers entries). std::invalid_argument unless
// 0 < n_layer < grow_layers.
std::vector<StackSlot> grownStackLayout(int64_t n_layer, int64_t grow_layers);

// An arm preset: how the arm runs its blocks, one row of the one table (architecture.cpp) that
// applyArmPreset, the growth recipe (core/ladder/growth_recipe.h) and the docs read. With the
// rung's depth split p + c + o (splitPreludeCoreCoda):
struct ArmPreset {
  const char* name;
  bool pcc = false;         // prelude/core/coda (else a plain stack of blocks)
  bool tied = false;        // pcc: the core's passes share their weights (a loop)
  int64_t passes = 1;       // pcc: K passes of the core before growth
  int64_t grow_passes = 0;  // K after growth (0: none); deep_stack: grows to p + K c + o blocks
  bool deep_stack = false;  // a plain stack of p + 2c + o blocks (as many as untied_2 runs)
};
// vanilla, deep_vanilla, operator_1, loop_2, untied_2, loop_grow, untied_grow, deep_vanilla_grow.
const std::vector<ArmPreset>& armPresets();
// The preset of this name, or nullptr.
const ArmPreset* findArmPreset(const std::string& name);

// The presets' names, in the table's order. `depth` is the rung's n_layer; applyArmPreset sets
// the architecture fields (and n_layer for the deep vanilla arms).
const std::vector<std::string>& armPresetNames();
bool isArmPreset(const std::string& name);
void applyArmPreset(const std::string& name, ModelConfig& model);  // throws std::invalid_argument

}  // namespace deepladder
