// A process-wide hook that runs before every SQL statement any storage::Database connection
// starts (opening one included: its PRAGMAs and schema checks are statements too). Storage stays
// free of threads and GUI toolkits: a program that must keep some thread free of queries (the
// workbench's GUI thread) installs a guard that checks the calling thread and asserts, counts or
// logs. Without a guard (the default) the hook costs one atomic load per statement.
#pragma once

#include <functional>

namespace deepladder::storage {

// Installs `guard` (an empty function removes it); applies to connections already open and to
// those opened later. Thread-safe; the guard itself runs on the thread that runs the statement.
void setQueryThreadGuard(std::function<void()> guard);

// Runs the installed guard, if any (called by storage before each statement starts).
void checkQueryThread();

}  // namespace deepladder::storage
