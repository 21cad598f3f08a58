// Files deepladder writes or reads where a regular file is expected, opened so that a symbolic
// link, a FIFO or a device put in their place is refused instead of followed or blocked on:
//  - openRegularFile: open(2) with O_NOFOLLOW and O_NONBLOCK, then fstat: a link is refused
//    (ELOOP), anything but a regular file is closed again and refused, so a FIFO never blocks;
//  - requireRealDirectory: lstat: a directory deepladder made must still be one, not a link;
//  - AtomicOutputFile: an output written to a temporary beside its target and renamed over it
//    only once every byte is written and the file closed without error, so a full disk leaves
//    the old file (or none), never a partial one; a character device or FIFO named as the target
//    (/dev/stdout, /dev/full) is written directly and checked at close;
//  - finishStandardOutput: stdout flushed and checked when a command ends (a full disk or
//    /dev/full is an error, not a silent empty output).
// Errors say which path and why; the callers add what to do.
#pragma once

#include <string>

namespace deepladder {

// open(2) of `path` with `flags` | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC (O_NONBLOCK is cleared
// again once the file is known to be regular). Returns the descriptor; throws UserError naming the
// path when it is a link, not a regular file, or cannot be opened. `what` names the file's role
// ("the worker log", "the training data").
int openRegularFile(const std::string& path, int flags, const std::string& what,
                    unsigned mode = 0644);

// Throws UserError when `path` is a symbolic link or not a directory (lstat, links not followed).
void requireRealDirectory(const std::string& path, const std::string& what);

// Why `path` cannot be read as a regular data file ("" when it can): missing, a link that goes
// nowhere, a directory, a FIFO, a device. Does not block on a FIFO (it is never opened).
std::string notRegularFileProblem(const std::string& path);

class AtomicOutputFile {
 public:
  // `what` names the output in messages ("--out", "the plot").
  AtomicOutputFile(const std::string& path, const std::string& what);
  ~AtomicOutputFile();  // removes the temporary when commit() was not reached
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  void write(const std::string& bytes);
  // Closes (checked) and renames the temporary over the target. Throws UserError on any failure,
  // leaving the target as it was.
  void commit();
  // The path bytes go to until commit(): the temporary, or the target itself when that is a
  // device or FIFO. For writers that want a path (a plot library): write it, then commit().
  const std::string& writePath() const { return write_path_; }

 private:
  std::string path_, what_, write_path_;
  int fd_ = -1;
  bool direct_ = false;  // a device or FIFO: written in place
  bool committed_ = false;
};

// Writes `bytes` to `path` through an AtomicOutputFile.
void writeFileAtomically(const std::string& path, const std::string& bytes,
                         const std::string& what);

// Flushes stdout (C and C++ streams) and checks it; returns "" or why it failed.
std::string finishStandardOutput();

}  // namespace deepladder
