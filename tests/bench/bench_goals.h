// Benchmark goals: every figure that has a goal is judged here, printed with OK or MISSED, and
// remembered, and main returns exitCode(): 1 when any goal was missed, so `make bench` and
// `make bench-smoke` fail on a miss instead of printing MISSED and exiting 0.
//
// Smoke mode (--smoke, label bench-smoke): the benchmark runs at small sizes for a few seconds to
// prove it still builds, runs and computes the right thing. Its timing goals are printed but not
// judged there (seconds of work on a machine shared with the rest of the test suite say nothing
// about speed; `make bench` judges them at full size), while correctness goals (two computations
// that must agree, a count that must come out) are judged in both modes.
#pragma once

#include <cstdio>
#include <cstring>
#include <string>

namespace deepladder::bench {

enum class GoalKind {
  kTiming,       // a speed, time or memory figure: judged at full size only
  kCorrectness,  // a result that must hold at any size: judged in smoke mode too
};

class Goals {
 public:
  explicit Goals(bool smoke = false) : smoke_(smoke) {}
  bool smoke() const { return smoke_; }

  // value < limit (strictly) / value <= limit / value >= limit. Each prints one line.
  bool below(const std::string& what, double value, double limit, const char* unit,
             GoalKind kind = GoalKind::kTiming) {
    return judge(what, value, "<", limit, unit, value < limit, kind);
  }
  bool atMost(const std::string& what, double value, double limit, const char* unit,
              GoalKind kind = GoalKind::kTiming) {
    return judge(what, value, "<=", limit, unit, value <= limit, kind);
  }
  bool atLeast(const std::string& what, double value, double limit, const char* unit,
               GoalKind kind = GoalKind::kTiming) {
    return judge(what, value, ">=", limit, unit, value >= limit, kind);
  }
  // A goal that is not a comparison of one figure: `ok` and a description of what was checked.
  bool holds(const std::string& what, bool ok, GoalKind kind = GoalKind::kCorrectness) {
    const bool judged = !smoke_ || kind == GoalKind::kCorrectness;
    std::printf("goal: %s: %s\n", what.c_str(),
                !judged ? "not judged in smoke mode"
                : ok    ? "OK"
                        : "MISSED");
    count(judged, ok);
    return ok;
  }

  // Prints the tally; 0 when every judged goal was met, 1 otherwise.
  int exitCode() const {
    std::printf("goals: %d met, %d missed, %d not judged%s\n", met_, missed_, unjudged_,
                smoke_ ? " (smoke mode: timing goals are judged by the full run)" : "");
    std::fflush(stdout);
    return missed_ > 0 ? 1 : 0;
  }

 private:
  bool judge(const std::string& what, double value, const char* op, double limit, const char* unit,
             bool ok, GoalKind kind) {
    const bool judged = !smoke_ || kind == GoalKind::kCorrectness;
    std::printf("goal: %-52s %12.4g %-4s (goal %s %g %s) %s\n", what.c_str(), value, unit, op,
                limit, unit,
                !judged ? "not judged in smoke mode"
                : ok    ? "OK"
                        : "MISSED");
    count(judged, ok);
    return ok;
  }
  void count(bool judged, bool ok) {
    if (!judged)
      ++unjudged_;
    else if (ok)
      ++met_;
    else
      ++missed_;
  }

  bool smoke_;
  int met_ = 0, missed_ = 0, unjudged_ = 0;
};

// True when argv holds --smoke; the flag is removed from argv (argc shrinks), so a benchmark's own
// argument parsing never sees it.
inline bool takeSmokeFlag(int& argc, char** argv) {
  bool smoke = false;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
  argv[argc] = nullptr;
  return smoke;
}

}  // namespace deepladder::bench
