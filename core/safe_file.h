// Files deepladder writes or reads where a regular file is expected, opened so that a symbolic
// link, a FIFO or a device put in their place is refused instead of followed or blocked on:
//  - openRegularFile: open(2) with O_NOFOLLOW and O_NONBLOCK, then fstat: a link is refused
//    (ELOOP), anything but a regular file is closed again and refused, so a FIFO never blocks;
//  - requireRealDirectory: lstat: a directory deepladder made must still be one, not a link;
//  - outputPathProblem / requireOutputPath: the one check every output path (each `--out`) passes
//    before anything is written: not empty, not too long, a regular file or a new one (never a
//    link, directory, device, FIFO or socket), not one of the command's inputs (the database, its
//    -wal/-shm/-journal, a results CSV: the same file by device and inode where it exists, by
//    canonical path otherwise) and nothing inside a work directory (checkpoints, logs, configs);
//  - AtomicOutputFile: an output checked as above, written to a temporary beside its target and
//    renamed over it only once every byte is written and the file closed without error, so a full
//    disk leaves the old file (or none), never a partial one;
//  - finishStandardOutput: stdout flushed and checked when a command ends (a full disk or
//    /dev/full is an error, not a silent empty output).
// Errors say which path and why; the callers add what to do.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

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

// Why `path` is not a usable path at all ("" when it is): longer than the system takes as a
// whole (PATH_MAX) or in one of its names (NAME_MAX), said in so many words.
std::string pathLengthProblem(const std::string& path);

// --- outputs that cannot destroy inputs ----------------------------------------------------------

// What a command's outputs may not replace: the inputs it read.
struct ProtectedPaths {
  struct Entry {
    std::string path;
    std::string role;  // for messages: "the database", "the work directory"
  };
  std::vector<Entry> files;        // never replaced (compared as files, see outputPathProblem)
  std::vector<Entry> directories;  // nothing inside them is written (work directories)

  void addFile(const std::string& path, const std::string& role);
  // A database: the file and the -wal, -shm and -journal SQLite keeps beside it.
  void addDatabase(const std::string& db_path);
  void addDirectory(const std::string& path, const std::string& role);
};

// Why `path` may not be written as an output ("" when it may): empty; too long; an existing
// symbolic link, directory, device, FIFO or socket (outputs go to a regular file or a new one);
// one of `inputs.files` (the same device and inode where both exist, the same canonical path
// otherwise, so a hard link, `./runs.db` or a path through a linked folder is caught too); or
// inside one of `inputs.directories`.
std::string outputPathProblem(const std::string& path, const ProtectedPaths& inputs = {});

// Throws UserError "PATH: `what` PROBLEM. Nothing was written" when outputPathProblem says so.
void requireOutputPath(const std::string& path, const std::string& what,
                       const ProtectedPaths& inputs = {});

class AtomicOutputFile {
 public:
  // `what` names the output in messages ("--out", "the plot"). Checks `path` with
  // requireOutputPath against `inputs` before anything is created.
  AtomicOutputFile(const std::string& path, const std::string& what,
                   const ProtectedPaths& inputs = {});
  ~AtomicOutputFile();  // removes the temporary when commit() was not reached
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  void write(const std::string& bytes);
  void write(const char* data, size_t size);
  // Closes (checked) and renames the temporary over the target. Throws UserError on any failure,
  // leaving the target as it was.
  void commit();
  // The temporary bytes go to until commit(). For writers that want a path (a plot library):
  // write it, then commit().
  const std::string& writePath() const { return write_path_; }
  // `message` with the temporary's path replaced by the target's, for errors of such writers.
  std::string namingTarget(std::string message) const;

 private:
  std::string path_, what_, write_path_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes `bytes` to `path` through an AtomicOutputFile.
void writeFileAtomically(const std::string& path, const std::string& bytes, const std::string& what,
                         const ProtectedPaths& inputs = {});

// Flushes stdout (C and C++ streams) and checks it; returns "" or why it failed.
std::string finishStandardOutput();

}  // namespace deepladder
