// Progress bar / plain progress lines (see terminal_progress.h).
#include "core/terminal_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "core/remaining_time.h"

namespace deepladder {

std::string formatDuration(double s) {
  if (!std::isfinite(s) || s < 0) return "-";
  const long total = static_cast<long>(std::lround(s));
  char buffer[32];
  if (total >= 3600)
    std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", total / 3600, (total % 3600) / 60);
  else if (total >= 60)
    std::snprintf(buffer, sizeof buffer, "%ldm%02lds", total / 60, total % 60);
  else
    std::snprintf(buffer, sizeof buffer, "%lds", total);
  return buffer;
}

std::string formatCount(double v) {
  char buffer[32];
  const double a = std::fabs(v);
  if (a >= 1e12)
    std::snprintf(buffer, sizeof buffer, "%.2e", v);
  else if (a >= 1e9)
    std::snprintf(buffer, sizeof buffer, "%.2fG", v / 1e9);
  else if (a >= 1e6)
    std::snprintf(buffer, sizeof buffer, "%.2fM", v / 1e6);
  else if (a >= 1e4)
    std::snprintf(buffer, sizeof buffer, "%.1fk", v / 1e3);
  else
    std::snprintf(buffer, sizeof buffer, "%.0f", v);
  return buffer;
}

std::string formatProgressLine(const ProgressState& st, int bar_width) {
  std::string line = st.label + " ";
  if (bar_width > 0) {
    const double fraction =
        st.total_steps > 0 ? std::min(1.0, double(st.step) / double(st.total_steps)) : 0.0;
    const int filled = static_cast<int>(fraction * bar_width);
    line += "[" + std::string(filled, '#') + std::string(bar_width - filled, '.') + "] ";
  }
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, "step %lld/%lld  %s tok/s", (long long)st.step,
                (long long)st.total_steps, formatCount(st.tokens_per_s).c_str());
  line += buffer;
  if (st.train_loss) {
    std::snprintf(buffer, sizeof buffer, "  loss %.4f", *st.train_loss);
    line += buffer;
  }
  if (st.val_loss) {
    std::snprintf(buffer, sizeof buffer, "  val %.4f", *st.val_loss);
    line += buffer;
  }
  line += "  ETA " +
          formatDuration(remainingSeconds(st.elapsed_s, st.step, st.total_steps).value_or(-1));
  return line;
}

TerminalProgress::TerminalProgress(std::FILE* out, double plain_interval_s)
    : out_(out), interactive_(isatty(fileno(out)) != 0), plain_interval_s_(plain_interval_s) {}

void TerminalProgress::update(const ProgressState& state) {
  if (interactive_) {
    std::fprintf(out_, "\r\033[K%s", formatProgressLine(state, 24).c_str());
    std::fflush(out_);
    drawn_ = true;
    return;
  }
  if (state.elapsed_s - last_plain_ < plain_interval_s_ && state.step < state.total_steps) return;
  last_plain_ = state.elapsed_s;
  std::fprintf(out_, "%s\n", formatProgressLine(state, 0).c_str());
  std::fflush(out_);
}

void TerminalProgress::finish(const std::string& final_line) {
  if (interactive_ && drawn_) std::fprintf(out_, "\r\033[K");
  if (!final_line.empty()) std::fprintf(out_, "%s\n", final_line.c_str());
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace deepladder

namespace deepladder {

MultiProgress::MultiProgress(std::FILE* out, double plain_interval_s)
    : out_(out), interactive_(isatty(fileno(out)) != 0), plain_interval_s_(plain_interval_s) {}

void MultiProgress::clearDrawn() {
  if (!interactive_) return;
  for (int i = 0; i < drawn_lines_; ++i) std::fprintf(out_, "\033[1A\r\033[K");
  drawn_lines_ = 0;
}

void MultiProgress::redraw() {
  if (!interactive_) return;
  clearDrawn();
  for (const auto& [id, state] : runs_) {
    std::fprintf(out_, "%s\n", formatProgressLine(state, 20).c_str());
    ++drawn_lines_;
  }
  if (!overall_.empty()) {
    std::fprintf(out_, "%s\n", overall_.c_str());
    ++drawn_lines_;
  }
  std::fflush(out_);
}

void MultiProgress::update(int64_t run_id, const ProgressState& state, double now_s) {
  size_t i = 0;
  while (i < runs_.size() && runs_[i].first != run_id) ++i;
  if (i == runs_.size()) {
    runs_.emplace_back(run_id, state);
    last_plain_.push_back(-1e9);
  } else {
    runs_[i].second = state;
  }
  if (interactive_) return;  // redrawn by the caller at its own pace
  if (now_s - last_plain_[i] >= plain_interval_s_) {
    last_plain_[i] = now_s;
    std::fprintf(out_, "%s\n", formatProgressLine(state, 0).c_str());
    std::fflush(out_);
  }
}

void MultiProgress::remove(int64_t run_id) {
  for (size_t i = 0; i < runs_.size(); ++i) {
    if (runs_[i].first != run_id) continue;
    runs_.erase(runs_.begin() + static_cast<long>(i));
    last_plain_.erase(last_plain_.begin() + static_cast<long>(i));
    break;
  }
}

void MultiProgress::note(const std::string& line) {
  clearDrawn();
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
  redraw();
}

}  // namespace deepladder
