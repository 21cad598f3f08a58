// Lens: a run's logit-lens KL-by-block profiles at each eval with d_lens marked, and d_lens vs
// training compute for every run of the same ladder, one series per arm. The rows load off the
// GUI thread (runInBackground); a newer request supersedes one still loading, and changing ε
// only redraws what was loaded.
#pragma once

#include <QWidget>
#include <memory>

class QCustomPlot;
class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace deepladder::ui {

struct LensData;

class LensView : public QWidget {
  Q_OBJECT
 public:
  explicit LensView(QWidget* parent = nullptr);
  ~LensView() override;
  void setDatabase(const QString& path);
  // Re-lists the runs with lens rows and shows the chosen one (in the background).
  void reloadRuns();
  // Shows `run_id` (loaded in the background).
  void showRun(int64_t run_id);
  // True while a load is on its way.
  bool loading() const { return pending_ > 0; }
  QCustomPlot* profilePlot() const { return profile_; }
  QCustomPlot* depthPlot() const { return depth_; }

 signals:
  // The newest request's rows arrived and were drawn (or it failed: see the status line).
  void loaded();

 private:
  void request(bool list_runs, int64_t run_id);
  void draw();
  QString db_path_;
  int generation_ = 0;  // results of older requests are dropped
  int pending_ = 0;
  std::shared_ptr<const LensData> data_;
  QComboBox* run_;
  QDoubleSpinBox* eps_;
  QLabel* status_;
  QCustomPlot* profile_;
  QCustomPlot* depth_;
};

}  // namespace deepladder::ui
