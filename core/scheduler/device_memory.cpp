// Device memory of a local slot (see device_memory.h).
#include "core/scheduler/device_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/scheduler/local_backend.h"

namespace deepladder::scheduler {

namespace {

// Memory of each GPU nvidia-smi lists, in MiB, in index order.
std::vector<double> gpuMemoryMiB() {
  std::vector<double> out;
  if (const char* fake = std::getenv("DEEPLADDER_FAKE_GPU_MEMORY_MB")) {
    std::stringstream in(fake);
    std::string item;
    while (std::getline(in, item, ','))
      if (!item.empty()) out.push_back(std::atof(item.c_str()));
    return out;
  }
  std::FILE* pipe =
      popen("nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null", "r");
  if (!pipe) return out;
  char line[256];
  while (std::fgets(line, sizeof line, pipe)) {
    const double mib = std::atof(line);
    if (mib > 0) out.push_back(mib);
  }
  pclose(pipe);
  return out;
}

double machineMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemTotal:") return kib * 1024.0;
  return 0;
}

}  // namespace

ladder::DeviceBudget localDeviceMemory(const ladder::Resources& resources) {
  ladder::DeviceBudget budget;
  if (resources.backend != "local") return budget;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const std::vector<Slot> slots = localSlots(resources, cores > 0 ? cores : 1, detectGpus());
  if (slots.empty()) return budget;
  // GPU slots name their GPU; CPU slots hide every GPU (an empty CUDA_VISIBLE_DEVICES).
  const auto visible = slots.front().env.find("CUDA_VISIBLE_DEVICES");
  const bool gpu = visible != slots.front().env.end() && !visible->second.empty();
  if (gpu) {
    const std::vector<double> memory = gpuMemoryMiB();
    double smallest = 0;
    for (const Slot& slot : slots) {
      const size_t index = std::stoul(slot.env.at("CUDA_VISIBLE_DEVICES"));
      if (index >= memory.size()) return budget;  // a GPU nvidia-smi did not report
      smallest = smallest == 0 ? memory[index] : std::min(smallest, memory[index]);
    }
    budget.bytes = smallest * 1024.0 * 1024.0;
    char text[96];
    std::snprintf(text, sizeof text, "the local GPU (%.0f MiB, nvidia-smi)", smallest);
    budget.source = text;
    return budget;
  }
  const double total = machineMemoryBytes();
  if (total <= 0) return budget;
  budget.bytes = total / static_cast<double>(slots.size());
  char text[128];
  std::snprintf(text, sizeof text, "this machine's memory (%.1f GB) shared by %zu CPU slot%s",
                total / 1e9, slots.size(), slots.size() == 1 ? "" : "s");
  budget.source = text;
  return budget;
}

ladder::DeviceBudget deviceBudgetFor(const ladder::Resources& resources) {
  if (resources.device_memory_gb > 0) return ladder::budgetFromResources(resources);
  return localDeviceMemory(resources);
}

void planForLocalDevices(ladder::LadderSpec& spec) {
  if (spec.resources.device_memory_gb > 0) return;  // checked when the ladder was read
  const ladder::DeviceBudget budget = localDeviceMemory(spec.resources);
  if (budget.bytes > 0) ladder::planMemory(spec, budget);
}

}  // namespace deepladder::scheduler
