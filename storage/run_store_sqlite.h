// The scheduler's RunStore (core/scheduler/run_store.h) over the SQLite database: the queue of a
// ladder's runs is the runs table itself, so a killed scheduler loses nothing and `resume` picks
// up where it stopped.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/scheduler/run_store.h"
#include "storage/database.h"
#include "storage/ingester.h"

namespace deepladder::storage {

// The runs that open their rung (arm, size of a ladder): the centre point of its sweep (the middle
// of its points in the order of their values; the lower middle of an even count) at its first
// seed. pending() starts them before every other run (in the order of openerTiers below), so each
// rung has a measured point, and the live projection a complete set of rungs, early. Every run of
// a ladder without a sweep and with one seed opens its rung.
std::set<int64_t> rungOpeners(const std::vector<RunRecord>& runs);

// The order pending() starts runs in, by tier (then biggest first, but smallest first within
// kSmallOpeners and kSmallRungsOtherPoints):
//  - kBiggestOpener: the ladder's biggest opener, its longest run, so it does not end the ladder
//    alone;
// (tiers are over every opener in `runs`, started or not: once the biggest has started, the next
// biggest does not take its place, and once the small ones have, no others become "smallest")
//  - kSmallOpeners: each arm's kRungsForAProjection smallest openers, smallest first: every arm
//    has the rungs a frontier fit with E free needs (three) within minutes, so the first measured
//    multipliers and the first complete projection come early, not once the big rungs are done;
//  - kOtherOpeners: the other openers, so that every rung has a measured point;
//  - kSmallRungsOtherPoints: the other runs (sweep points, seeds) of each arm's
//    kRungsForCalibration smallest rungs, smallest first: runs of seconds whose finished curves at
//    every swept value let halving's curve predictions judge the big rungs' sweep points at those
//    values (fitting/curve_transfer.h: from centre points alone, a rung's x0.5 and x2 points lie
//    where the peers' gains say nothing, and their intervals are wide); halving never judges
//    them (calibrationRuns below), so they run to their end;
//  - kOtherRuns (not in the map): the sweep's other points and the other seeds.
// A ladder whose every run opens its rung (no sweep, one seed) gets no tiers: biggest first.
enum OpenerTier {
  kBiggestOpener = 0,
  kSmallOpeners = 1,
  kOtherOpeners = 2,
  kSmallRungsOtherPoints = 3,
  kOtherRuns = 4
};
constexpr int kRungsForAProjection = 3;
constexpr int kRungsForCalibration = 2;
std::map<int64_t, int> openerTiers(const std::vector<RunRecord>& runs,
                                   const std::set<int64_t>& openers);

// The runs of each arm's kRungsForCalibration smallest rungs, of a ladder that has a sweep or a
// second seed (none otherwise): sweep halving never stops them (app/ladder_halving.h). Runs of
// seconds whose finished curves at every swept value are what the curve predictions of the big
// rungs' points at those values read: stopped, they would leave a big rung's x0.5 point with no
// finished run at its rate, its prediction an extrapolation and its interval wide or wrong.
std::set<int64_t> calibrationRuns(const std::vector<RunRecord>& runs);

class SqliteRunStore : public scheduler::RunStore {
 public:
  // `ladder_id`: only this ladder's runs; nullopt: every run in the database.
  SqliteRunStore(Database& db, std::optional<int64_t> ladder_id) : db_(db), ladder_id_(ladder_id) {}
  // A queue of one run (`deepladder train`, or a single run resumed).
  static SqliteRunStore singleRun(Database& db, int64_t run_id) {
    SqliteRunStore store(db, std::nullopt);
    store.run_id_ = run_id;
    return store;
  }

  std::vector<scheduler::PendingRun> pending() override;
  void markLaunched(int64_t id, const std::string& where, int64_t attempt) override;
  std::unique_ptr<scheduler::RunSink> sink(int64_t id) override;
  void settle(int64_t id, RunStatus status, const std::string& message) override;
  bool cancelRequested(int64_t id) override;
  std::pair<RunStatus, std::string> cancelledOutcome(int64_t id) override;

 private:
  Database& db_;
  std::optional<int64_t> ladder_id_;
  std::optional<int64_t> run_id_;
};

// A sink that decodes each worker line once and hands it to an Ingester of `run_id`.
std::unique_ptr<scheduler::RunSink> makeIngestingSink(Database& db, int64_t run_id,
                                                      IngestMode mode);

// A run directory deleted while the run waited (by hand, or a cleaned scratch disk) is made again
// with the config stored in the database, so the run starts afresh instead of failing to launch.
void restoreRunDirectory(const RunRecord& run);

// Runs left "running" by a scheduler that died become "interrupted" (resumable), and so do single
// runs (`deepladder train`, no ladder) whose process and worker are both gone (neither holds its
// run directory's lock, core/run_dir_lock.h); a live single run is left alone. Call only while
// holding the scheduler lock (no scheduler is alive). Returns how many were changed.
int markOrphanedRunsInterrupted(Database& db, std::optional<int64_t> ladder_id);

}  // namespace deepladder::storage
