// Progress display for runs: a live bar redrawn in place on a terminal, plain lines (at most one
// every few seconds) when stderr is a file or a pipe. Formatting helpers are separate so they can
// be tested and reused by `status`.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace deepladder {

struct ProgressState {
  std::string label;  // run name
  int64_t step = 0;
  int64_t total_steps = 0;
  double tokens_per_s = 0;
  std::optional<double> train_loss;
  std::optional<double> val_loss;
  double elapsed_s = 0;
};

// "1h02m", "3m05s", "42s"; "-" for unknown or negative.
std::string formatDuration(double seconds);
// "1.23e+15" style compact numbers for FLOPs; "12.3k" for counts.
std::string formatCount(double value);
// One line: label [#####.....] step/total  tok/s  loss  val  ETA.
std::string formatProgressLine(const ProgressState& state, int bar_width);

class TerminalProgress {
 public:
  explicit TerminalProgress(std::FILE* out = stderr, double plain_interval_s = 5.0);
  void update(const ProgressState& state);     // redraws (tty) or prints a line when due (plain)
  void finish(const std::string& final_line);  // ends the live line and prints a summary

 private:
  std::FILE* out_;
  bool interactive_;
  double plain_interval_s_;
  double last_plain_ = -1e9;
  bool drawn_ = false;
};

// Several runs at once (a ladder): one line per active run plus an overall line, redrawn in place
// on a terminal; on a pipe, a line per run at most every few seconds and one per event.
class MultiProgress {
 public:
  explicit MultiProgress(std::FILE* out = stderr, double plain_interval_s = 10.0);
  void update(int64_t run_id, const ProgressState& state, double now_s);
  void remove(int64_t run_id);
  void note(const std::string& line);  // an event line (launch, finish, retry)
  void setOverall(const std::string& line) { overall_ = line; }
  void redraw();

 private:
  std::FILE* out_;
  bool interactive_;
  double plain_interval_s_;
  std::vector<std::pair<int64_t, ProgressState>> runs_;
  std::vector<double> last_plain_;
  std::string overall_;
  int drawn_lines_ = 0;
  void clearDrawn();
};

}  // namespace deepladder
