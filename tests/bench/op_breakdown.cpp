// Per-op breakdown of a training step under LibTorch's legacy CPU profiler (see op_breakdown.h).
#include "tests/bench/op_breakdown.h"

#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace deepladder::bench {

namespace {

namespace profiler = torch::autograd::profiler;

constexpr const char* kPrefix = "deepladder::";

bool isScope(const char* name) {
  return std::strncmp(name, kPrefix, std::strlen(kPrefix)) == 0;
}

std::string category(const char* name) {
  return std::string(name + std::strlen(kPrefix));
}

// Custom autograd functions' backward nodes (CppNode<...>) by name -> their category.
const std::pair<const char*, const char*> kCustomNodes[] = {
    {"DnnlLinear", "linear"},
    {"CausalAttentionFunction", "attention"},
    {"RmsNormFunction", "rms_norm"},
    {"RotaryFunction", "rotary"},
    {"SwigluFunction", "mlp_act"},
    {"CrossEntropyFunction", "cross_entropy"},
    {"CheckpointFunction", "checkpoint"}};

// A pushed range with the innermost deepladder:: scope around it.
struct Open {
  const profiler::LegacyEvent* event;
  std::string scope;
};

}  // namespace

OpBreakdown profileSteps(const std::function<void()>& step, int steps) {
  profiler::enableProfilerLegacy(
      torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) step();
  const double wall_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  const profiler::thread_event_lists lists = profiler::disableProfilerLegacy();

  OpBreakdown out;
  out.step_us = wall_us / steps;
  // Pass 1: forward ops' sequence numbers -> the scope they ran in.
  std::unordered_map<int64_t, std::string> scope_of_sequence;
  // Pass 2 charges: exclusive time of deepladder:: scopes and backward nodes.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& list : lists) {
      std::vector<Open> stack;
      for (const auto& event : list) {
        if (event.kind() == profiler::EventKind::PushRange) {
          std::string scope = stack.empty() ? std::string() : stack.back().scope;
          if (isScope(event.name())) scope = category(event.name());
          const bool evaluate = std::strstr(event.name(), "evaluate_function: ") != nullptr;
          if (evaluate) {
            // A backward node: charged to the forward scope that created it, which the node's
            // own range (next, nested) names by sequence number; custom functions by name.
            scope =
                std::strstr(event.name(), "AccumulateGrad") ? "bwd:grad_accumulation" : "bwd:other";
            for (const auto& [node, owner] : kCustomNodes)
              if (std::strstr(event.name(), node) != nullptr) scope = std::string("bwd:") + owner;
          } else if (scope == "bwd:other" && event.sequenceNr() >= 0 && !stack.empty()) {
            const auto found = scope_of_sequence.find(event.sequenceNr());
            if (found != scope_of_sequence.end()) {
              scope = "bwd:" + found->second;
              // Re-charge the enclosing evaluate_function range too.
              if (std::strstr(stack.back().event->name(), "evaluate_function: "))
                stack.back().scope = scope;
            }
          }
          if (pass == 0 && !evaluate && event.sequenceNr() >= 0 && !scope.empty() &&
              scope.rfind("bwd:", 0) != 0 && !scope_of_sequence.count(event.sequenceNr()))
            scope_of_sequence[event.sequenceNr()] = scope;
          stack.push_back({&event, scope});
        } else if (event.kind() == profiler::EventKind::PopRange && !stack.empty()) {
          const Open open = stack.back();
          stack.pop_back();
          if (pass == 0) continue;
          const std::string parent = stack.empty() ? std::string() : stack.back().scope;
          if (open.scope == parent || open.scope.empty()) continue;  // charged to its scope
          // Exclusive: the time of this scope minus nested scopes (subtracted from the parent).
          const double us = open.event->cpuElapsedUs(event) / steps;
          auto charge = [&](const std::string& scope, double amount) {
            if (scope.empty()) return;
            if (scope.rfind("bwd:", 0) == 0)
              out.bwd_us[scope.substr(4)] += amount;
            else
              out.fwd_us[scope] += amount;
          };
          charge(open.scope, us);
          charge(parent, -us);
        }
      }
    }
  }
  return out;
}

void printBreakdown(const char* label, const OpBreakdown& b) {
  std::map<std::string, std::pair<double, double>> rows;
  for (const auto& [name, us] : b.fwd_us) rows[name].first += us;
  for (const auto& [name, us] : b.bwd_us) rows[name].second += us;
  double accounted = 0;
  std::printf("ops %s step_ms=%.2f (profiled)\n", label, b.step_us / 1e3);
  for (const auto& [name, t] : rows) {
    accounted += t.first + t.second;
    std::printf("ops %s %-18s fwd_ms=%6.3f bwd_ms=%6.3f share=%5.1f%%\n", label, name.c_str(),
                t.first / 1e3, t.second / 1e3, 100.0 * (t.first + t.second) / b.step_us);
  }
  std::printf("ops %s %-18s share=%5.1f%%\n", label, "unscoped",
              100.0 * (1 - accounted / b.step_us));
}

}  // namespace deepladder::bench
