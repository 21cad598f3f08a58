// Block structure and arm presets (see architecture.h).
#include "core/architecture.h"

#include <algorithm>
#include <stdexcept>

namespace deepladder {

BlockSplit splitPreludeCoreCoda(int64_t n_layer) {
  const int64_t base = n_layer / 3;
  const int64_t extra = n_layer % 3;
  return {base, base + (extra >= 1 ? 1 : 0), base + (extra >= 2 ? 1 : 0)};
}

ArchitectureShape architectureShape(const ModelConfig& m) {
  ArchitectureShape shape;
  shape.pcc = m.arch == Arch::pcc;
  if (!shape.pcc) {
    shape.before = {1, m.n_layer, m.n_layer};
    shape.grows = m.grow_layers > m.n_layer;
    shape.after = shape.grows ? PhaseShape{1, m.grow_layers, m.grow_layers} : shape.before;
    return shape;
  }
  shape.split = splitPreludeCoreCoda(m.n_layer);
  const BlockSplit& s = shape.split;
  const bool tied = m.core_mode == CoreMode::tied;
  auto phase = [&](int64_t passes) {
    PhaseShape p;
    p.passes = passes;
    p.distinct_blocks = s.prelude + s.coda + (tied ? s.core : s.core * passes);
    p.executed_blocks = s.prelude + s.coda + s.core * passes;
    return p;
  };
  shape.before = phase(m.passes);
  shape.grows = m.grow_passes > m.passes;
  shape.after = shape.grows ? phase(m.grow_passes) : shape.before;
  return shape;
}

int64_t growthStep(const ModelConfig& model, int64_t steps) {
  if (!architectureShape(model).grows) return -1;
  return static_cast<int64_t>(model.grow_fraction * static_cast<double>(steps));
}

std::vector<StackSlot> grownStackLayout(int64_t n_layer, int64_t grow_layers) {
  if (n_layer <= 0 || grow_layers <= n_layer)
    throw std::invalid_argument("grownStackLayout: need 0 < n_layer < grow_layers, got " +
                                std::to_string(n_layer) + " -> " + std::to_string(grow_layers));
  const int64_t added = grow_layers - n_layer;
  const int64_t section = std::min(added, n_layer);
  const int64_t start = (n_layer - section) / 2;
  std::vector<StackSlot> layout;
  layout.reserve(static_cast<size_t>(grow_layers));
  for (int64_t j = 0; j < start + section; ++j) layout.push_back({j, false});
  for (int64_t i = 0; i < added; ++i) layout.push_back({start + i % section, true});
  for (int64_t j = start + section; j < n_layer; ++j) layout.push_back({j, false});
  return layout;
}

// ---------------------------------------------------------------------------------------------
// The arm presets (a new preset: one row here).
const std::vector<ArmPreset>& armPresets() {
  //                                          name  pcc  tied  K  K grown  deep stack
  static const std::vector<ArmPreset> presets = {
      {"vanilla", false, false, 1, 0, false},    {"deep_vanilla", false, false, 1, 0, true},
      {"operator_1", true, false, 1, 0, false},  {"loop_2", true, true, 2, 0, false},
      {"untied_2", true, false, 2, 0, false},    {"loop_grow", true, true, 2, 4, false},
      {"untied_grow", true, false, 2, 4, false}, {"deep_vanilla_grow", false, false, 1, 4, true},
  };
  return presets;
}

const ArmPreset* findArmPreset(const std::string& name) {
  for (const ArmPreset& preset : armPresets())
    if (name == preset.name) return &preset;
  return nullptr;
}

const std::vector<std::string>& armPresetNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const ArmPreset& preset : armPresets()) all.push_back(preset.name);
    return all;
  }();
  return names;
}

bool isArmPreset(const std::string& name) {
  return findArmPreset(name) != nullptr;
}

void applyArmPreset(const std::string& name, ModelConfig& m) {
  const ArmPreset* preset = findArmPreset(name);
  if (!preset) throw std::invalid_argument("unknown arm preset \"" + name + "\"");
  const BlockSplit s = splitPreludeCoreCoda(m.n_layer);
  m.grow_layers = 0;
  m.grow_passes = 0;
  if (preset->pcc) {
    m.arch = Arch::pcc;
    m.core_mode = preset->tied ? CoreMode::tied : CoreMode::untied;
    m.passes = preset->passes;
    m.grow_passes = preset->grow_passes;
    return;
  }
  m.arch = Arch::vanilla;
  if (!preset->deep_stack) return;
  m.n_layer = s.prelude + 2 * s.core + s.coda;
  if (preset->grow_passes > 0) m.grow_layers = s.prelude + preset->grow_passes * s.core + s.coda;
}

}  // namespace deepladder
