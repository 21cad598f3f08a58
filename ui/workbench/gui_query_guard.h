// Keeps SQLite off the GUI thread. installGuiThreadQueryGuard() sets storage's query hook
// (storage/query_thread_guard.h) so that, in debug builds, a statement started on the GUI thread
// aborts with a message; release builds install nothing. Every view loads through
// runInBackground (background.h) or the run poller's thread instead.
//
// What may still touch the database on the GUI thread, inside an AllowGuiThreadQueries scope:
// checking a database when File > Open picks it (a read-only open: a few schema reads, not the
// data), and the short writes a user's click asks for and waits on (cancel, retry, resume,
// queueing a ladder, the resume hand-off when closing). Opening and closing a connection counts
// as a query: opening runs PRAGMAs and the schema check.
#pragma once

namespace deepladder::ui {

// Debug builds: a SQLite statement on the GUI thread outside an AllowGuiThreadQueries scope
// is fatal. Release builds: does nothing. Call once the QApplication exists.
void installGuiThreadQueryGuard();

// True when the calling thread is the application's GUI thread and no AllowGuiThreadQueries
// scope is open on it: a statement now would stall the window.
bool queryWouldStallGui();

// Marks a deliberate, short database access on the GUI thread (see above).
class AllowGuiThreadQueries {
 public:
  AllowGuiThreadQueries();
  ~AllowGuiThreadQueries();
  AllowGuiThreadQueries(const AllowGuiThreadQueries&) = delete;
  AllowGuiThreadQueries& operator=(const AllowGuiThreadQueries&) = delete;
};

}  // namespace deepladder::ui
