// The scheduler loop (see scheduler.h).
#include "core/scheduler/scheduler.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/disk_full.h"
#include "core/run_outcome.h"
#include "core/run_status.h"

namespace deepladder::scheduler {

struct Scheduler::Active {
  PendingRun run;
  std::vector<size_t> slots;  // indices into slots_
  std::unique_ptr<Execution> execution;
  std::unique_ptr<RunSink> sink;
  double last_output = 0;
  bool hung = false;
  bool cancelled = false;
  double last_cancel_check = 0;
};

Scheduler::Scheduler(RunStore& store, Backend& backend, SchedulerOptions options)
    : store_(store), backend_(backend), options_(std::move(options)) {}

Scheduler::~Scheduler() = default;

double Scheduler::now() const {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count() - start_;
}

void Scheduler::emit(SchedulerEvent::Kind kind, const Active& active, const std::string& detail,
                     std::optional<protocol::Message> message) {
  if (!on_event_) return;
  SchedulerEvent event{
      kind,   active.run.id, active.run.name,   active.execution ? active.execution->where() : "",
      detail, now(),         std::move(message)};
  on_event_(event);
}

void Scheduler::emitSettled(const Active& active, RunStatus status, const std::string& message) {
  if (!on_event_) return;
  SchedulerEvent event{SchedulerEvent::kSettled,
                       active.run.id,
                       active.run.name,
                       active.execution ? active.execution->where() : "",
                       message,
                       now(),
                       std::nullopt,
                       status};
  on_event_(event);
}

void Scheduler::launchInto(const std::vector<size_t>& slot_indices, const PendingRun& run) {
  auto active = std::make_unique<Active>();
  active->run = run;
  active->run.attempt = run.attempt + 1;
  active->slots = slot_indices;
  active->sink = store_.sink(run.id);
  std::vector<Slot> slots;
  std::string names;
  for (size_t i : slot_indices) {
    slots.push_back(slots_[i]);
    names += (names.empty() ? "" : "+") + slots_[i].name;
  }
  // Mark first so that a crash of the scheduler right after the launch leaves the run
  // "running", which resume treats as interrupted.
  store_.markLaunched(run.id, names, active->run.attempt);
  PendingRun launched = run;  // attempt as stored before this launch: > 0 means resume
  try {
    active->execution = backend_.launch(launched, slots, options_.worker_path);
  } catch (const std::exception& e) {
    // Nothing started (say, the run's directory is gone and cannot be made again): a failed
    // attempt like any other, never the end of the scheduler.
    const bool retry = active->run.attempt <= options_.retries;
    const std::string message = std::string("the worker could not be started: ") + e.what();
    const RunStatus status = retry ? RunStatus::kQueued : RunStatus::kFailed;
    store_.settle(
        run.id, status,
        retry ? "attempt " + std::to_string(active->run.attempt) + " " + message
              : message + " (gave up after " + std::to_string(active->run.attempt) + " attempts)");
    emitSettled(*active, status, message);
    return;
  }
  // Where it really runs (a Slurm job id, say) is known only now.
  if (active->execution->where() != names)
    store_.markLaunched(run.id, active->execution->where(), active->run.attempt);
  active->last_output = now();
  emit(SchedulerEvent::kLaunched, *active, "attempt " + std::to_string(active->run.attempt));
  active_.push_back(std::move(active));
}

void Scheduler::fillFreeSlots() {
  std::vector<bool> busy(slots_.size(), false);
  for (const auto& a : active_)
    for (size_t i : a->slots) busy[i] = true;
  std::vector<size_t> free;
  for (size_t i = 0; i < slots_.size(); ++i)
    if (!busy[i]) free.push_back(i);
  if (free.empty()) return;
  std::vector<PendingRun> pending = store_.pending();
  int64_t waiting = 0;  // runs left queued after this round
  for (const PendingRun& run : pending) {
    bool in_flight = false;
    for (const auto& a : active_) in_flight = in_flight || a->run.id == run.id;
    if (in_flight) continue;
    if (waiting > 0) {
      ++waiting;
      continue;
    }
    const int64_t needed = backend_.slotsNeeded(run);
    if (needed > static_cast<int64_t>(slots_.size())) {
      // It can never start here: say so instead of waiting forever.
      const std::string message = "needs " + std::to_string(needed) +
                                  " slots at once (train.ranks = " + std::to_string(run.ranks) +
                                  ") but " + backend_.describe() +
                                  "; lower train.ranks or give the ladder more devices or slots";
      store_.settle(run.id, RunStatus::kFailed, message);
      if (on_event_)
        on_event_({SchedulerEvent::kSettled, run.id, run.name, "", message, now(), std::nullopt,
                   RunStatus::kFailed});
      continue;
    }
    // Strictly biggest first: when the biggest waiting run does not fit yet, nothing smaller
    // overtakes it (the slots it waits for free up as runs end).
    if (needed > static_cast<int64_t>(free.size())) {
      ++waiting;
      continue;
    }
    const std::vector<size_t> taken(free.begin(), free.begin() + needed);
    free.erase(free.begin(), free.begin() + needed);
    launchInto(taken, run);
  }
  // Standbys only while runs wait for a slot: the last runs leave none behind.
  const auto policy = options_.standby_workers;
  if (policy == SchedulerOptions::Standby::kAlways ||
      (policy == SchedulerOptions::Standby::kOnSpareCores && backend_.coresToSpare())) {
    if (waiting > 0)
      backend_.prepareStandbys(slots_, options_.worker_path);
    else
      backend_.dropStandbys();
  }
}

void Scheduler::settle(Active& active) {
  std::optional<ExecutionEnd> end = active.execution->finished();
  active.sink->flush();
  const bool interrupted = end->killed_by_us && !active.hung && !active.cancelled;
  RunOutcome outcome = decideRunOutcome(active.sink->doneStatus(), active.sink->doneMessage(),
                                        end->exit, interrupted, active.sink->lastError());
  // A run whose worker reported it done before the cancel (or a halving stop) reached it has
  // ended on its own: it keeps its outcome (finished or diverged), as its stored row does.
  if (active.cancelled && !active.sink->doneStatus()) {
    const auto [status, message] = store_.cancelledOutcome(active.run.id);
    outcome = {status, message};
  }
  // A full disk stops the queue: every run would meet it, and each is resumable as it stands.
  if (outcome.disk_full && !active.cancelled) stop_requested_ = true;
  if (active.hung)
    outcome.message = "no output for " + std::to_string(int(options_.heartbeat_timeout_s)) +
                      " s (hung); killed. " + outcome.message;
  // Exit status 2 is the worker saying its input is bad: a retry would fail the same way.
  const bool bad_input = outcome.bad_input && !active.hung && !active.cancelled;
  if (outcome.status == RunStatus::kFailed && !bad_input &&
      active.run.attempt <= options_.retries) {
    store_.settle(active.run.id, RunStatus::kQueued,
                  "attempt " + std::to_string(active.run.attempt) + " " + outcome.message +
                      "; retrying from the last checkpoint");
    emitSettled(active, RunStatus::kQueued, outcome.message);
    return;
  }
  if (outcome.status == RunStatus::kFailed && !bad_input)
    outcome.message += " (gave up after " + std::to_string(active.run.attempt) + " attempts)";
  store_.settle(active.run.id, outcome.status, outcome.message);
  if (completedTraining(outcome.status)) ++completed_;
  emitSettled(active, outcome.status, outcome.message);
}

int Scheduler::run() {
  try {
    return runLoop();
  } catch (const DiskFullError& e) {
    const std::string what = e.what();
    interruptAll(what);
    throw DiskFullError(what +
                        ". The runs in flight were stopped at their last checkpoints: free space, "
                        "then `deepladder resume` continues them");
  }
}

void Scheduler::interruptAll(const std::string& reason) {
  for (auto& a : active_)
    if (a) a->execution->terminate();
  const double deadline = now() + 60;
  for (auto& a : active_) {
    if (!a) continue;
    bool killed = false;
    while (!a->execution->finished()) {
      a->execution->pollOutput([](const std::string&) {});  // nothing more can be stored
      if (!killed && now() > deadline) {
        a->execution->kill();
        killed = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(options_.poll_ms));
    }
    try {
      store_.settle(a->run.id, RunStatus::kInterrupted,
                    "stopped: " + reason + "; resume continues it from its last checkpoint");
      emitSettled(*a, RunStatus::kInterrupted, reason);
    } catch (const std::exception&) {
      // The database takes no write either: `resume` finds the run left running by a scheduler
      // that is gone and treats it as interrupted.
    }
  }
  active_.clear();
}

int Scheduler::runLoop() {
  start_ = 0;
  start_ = now();
  slots_ = backend_.slots();
  active_.clear();
  struct DropStandbys {  // however run() ends
    Backend& backend;
    ~DropStandbys() { backend.dropStandbys(); }
  } drop_standbys{backend_};

  for (;;) {
    if (!stop_requested_) fillFreeSlots();

    bool any_active = false;
    std::vector<pollfd> fds;
    for (size_t i = 0; i < active_.size(); ++i) {
      Active* a = active_[i].get();
      if (!a) continue;
      any_active = true;
      bool got_output = false;
      a->execution->pollOutput([&](const std::string& line) {
        got_output = true;
        emit(SchedulerEvent::kLine, *a, line, a->sink->line(line));
      });
      const double t = now();
      if (got_output) a->last_output = t;
      if (stop_requested_ && !a->hung) {
        a->execution->terminate();
      }
      if (!a->hung && t - a->last_output > options_.heartbeat_timeout_s) {
        a->hung = true;
        a->execution->kill();
      }
      if (t - a->last_cancel_check > 1.0) {
        a->last_cancel_check = t;
        if (!a->cancelled && store_.cancelRequested(a->run.id)) {
          a->cancelled = true;
          a->execution->terminate();
        }
      }
      if (a->execution->finished()) {
        settle(*a);
        active_[i].reset();
        continue;
      }
      if (int fd = a->execution->pollFd(); fd >= 0) fds.push_back({fd, POLLIN, 0});
    }
    active_.erase(std::remove(active_.begin(), active_.end(), nullptr), active_.end());
    if (!any_active) {
      if (stop_requested_) break;
      if (store_.pending().empty()) break;
      continue;
    }
    // Sleep until some worker speaks (or a short timeout for the non-fd backends and checks).
    if (!fds.empty() && fds.size() == static_cast<size_t>(std::count_if(
                                          active_.begin(), active_.end(),
                                          [](const auto& a) { return a != nullptr; })))
      ::poll(fds.data(), fds.size(), options_.poll_ms * 10);
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(options_.poll_ms));
  }
  return completed_;
}

}  // namespace deepladder::scheduler
