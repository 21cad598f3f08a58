// Regular files only, links refused, outputs written whole or not at all (see safe_file.h).
#include "core/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <vector>

#include "core/errors.h"
#include "core/names.h"
#include "core/safe_text.h"

namespace deepladder {

namespace {

std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

std::string errnoText(int error) {
  return std::strerror(error);
}

bool writeAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

namespace fs = std::filesystem;

// `path` made absolute, with the links and dot-dots of its existing part resolved.
fs::path canonicalOf(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = path;
  const fs::path canonical = fs::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : canonical;
}

bool sameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

std::string namedBy(const std::string& role, const std::string& path) {
  return role + " (" + shownText(path, 200) + ")";
}

}  // namespace

int openRegularFile(const std::string& path, int flags, const std::string& what, unsigned mode) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int error = errno;
    struct stat st {};
    if (error == ELOOP || (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)))
      throw UserError(path + ": " + what +
                      " is a symbolic link; deepladder does not write or read through links "
                      "here. Remove the link");
    if (error == ENXIO)  // a FIFO opened for writing with no reader
      throw UserError(path + ": " + what + " is a FIFO (named pipe), not a regular file");
    throw UserError(path + ": cannot open " + what + " (" + errnoText(error) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string kind = kindOf(st.st_mode);
    ::close(fd);
    throw UserError(path + ": " + what + " is " + kind + ", not a regular file");
  }
  const int status = ::fcntl(fd, F_GETFL);
  if (status >= 0) ::fcntl(fd, F_SETFL, status & ~O_NONBLOCK);
  return fd;
}

void requireRealDirectory(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    throw UserError(path + ": cannot read " + what + " (" + errnoText(errno) + ")");
  if (S_ISLNK(st.st_mode))
    throw UserError(path + ": " + what +
                    " is a symbolic link; deepladder writes only into directories it made. "
                    "Remove the link (the run directory is made again)");
  if (!S_ISDIR(st.st_mode)) throw UserError(path + ": " + what + " is " + kindOf(st.st_mode));
}

std::string notRegularFileProblem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0) return "is a symbolic link to nothing";
    return errno == ENOENT ? "does not exist" : "cannot be read (" + errnoText(errno) + ")";
  }
  if (!S_ISREG(st.st_mode)) return "is " + kindOf(st.st_mode) + ", not a regular file";
  return {};
}

std::string pathLengthProblem(const std::string& path) {
  if (path.size() >= PATH_MAX)
    return "is " + std::to_string(path.size()) +
           " bytes long, longer than the system allows for a path (" +
           std::to_string(PATH_MAX - 1) + " bytes). Give a shorter path";
  size_t begin = 0;
  while (begin < path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string::npos) end = path.size();
    if (end - begin > NAME_MAX)
      return "holds a name of " + std::to_string(end - begin) + " bytes (\"" +
             shownText(path.substr(begin, end - begin), 40) +
             "\"), longer than the system allows for one name (" + std::to_string(NAME_MAX) +
             " bytes). Give a shorter name";
    begin = end + 1;
  }
  return {};
}

// --- outputs that cannot destroy inputs ----------------------------------------------------------

void ProtectedPaths::addFile(const std::string& path, const std::string& role) {
  if (!path.empty()) files.push_back({path, role});
}

void ProtectedPaths::addDatabase(const std::string& db_path) {
  if (db_path.empty() || db_path == ":memory:") return;
  addFile(db_path, "the database");
  addFile(db_path + "-wal", "the database's write-ahead log");
  addFile(db_path + "-shm", "the database's shared-memory index");
  addFile(db_path + "-journal", "the database's journal");
}

void ProtectedPaths::addDirectory(const std::string& path, const std::string& role) {
  if (!path.empty()) directories.push_back({path, role});
}

std::string outputPathProblem(const std::string& path, const ProtectedPaths& inputs) {
  if (path.empty()) return "is empty; give a file name";
  if (const std::string problem = pathLengthProblem(path); !problem.empty()) return problem;
  struct stat target {};
  const bool exists = ::lstat(path.c_str(), &target) == 0;
  if (exists) {
    if (S_ISLNK(target.st_mode))
      return "is a symbolic link; deepladder does not write through links. Give the path it "
             "points to, or remove it";
    if (S_ISDIR(target.st_mode)) return "is a directory; give a file name";
    if (!S_ISREG(target.st_mode))
      return "is " + kindOf(target.st_mode) +
             ", not a regular file; outputs are written only to a regular file or a new one "
             "(to see it on the terminal, leave out --out where the command allows)";
  }
  const fs::path canonical = canonicalOf(path);
  for (const auto& input : inputs.files) {
    struct stat st {};
    const bool input_exists = ::stat(input.path.c_str(), &st) == 0;
    if ((exists && input_exists && sameFile(target, st)) || canonical == canonicalOf(input.path))
      return "is " + namedBy(input.role, input.path) +
             ", which this command reads; writing it would destroy it. Give another path";
  }
  for (const auto& dir : inputs.directories) {
    struct stat st {};
    bool inside = isInsideDirectory(canonicalOf(dir.path).string(), canonical.string());
    if (!inside && ::stat(dir.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      // The same folder reached by another name (a bind mount, a hard-linked path): compare the
      // existing folders above the target by device and inode.
      for (fs::path up = canonical.parent_path(); !inside; up = up.parent_path()) {
        struct stat above {};
        if (::stat(up.c_str(), &above) == 0 && sameFile(above, st)) inside = true;
        if (up == up.parent_path()) break;
      }
    }
    if (inside)
      return "lies inside " + namedBy(dir.role, dir.path) +
             ", where deepladder keeps runs' checkpoints, logs and configs. Give a path outside "
             "it";
  }
  return {};
}

void requireOutputPath(const std::string& path, const std::string& what,
                       const ProtectedPaths& inputs) {
  const std::string problem = outputPathProblem(path, inputs);
  if (problem.empty()) return;
  throw UserError((path.empty() ? what + ": the path " : shownText(path, 200) + ": " + what + " ") +
                  problem + ". Nothing was written");
}

// --- AtomicOutputFile ----------------------------------------------------------------------------

AtomicOutputFile::AtomicOutputFile(const std::string& path, const std::string& what,
                                   const ProtectedPaths& inputs)
    : path_(path), what_(what) {
  requireOutputPath(path, what, inputs);
  struct stat st {};
  mode_t mode = 0;  // of the file it replaces, or the umask's default
  if (::lstat(path.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  // A temporary beside the target (same folder, so the rename is atomic), with its extension (a
  // writer may choose the format by it), its name cut to fit the system's limit on one name.
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.rfind('.');
  std::string ext = dot == std::string::npos || dot == 0 ? "" : base.substr(dot);
  const std::string marker = ".partial-XXXXXX";
  if (1 + marker.size() + ext.size() > NAME_MAX) ext.clear();
  std::string stem = base.substr(0, base.size() - ext.size());
  stem.resize(std::min(stem.size(), NAME_MAX - 1 - marker.size() - ext.size()));
  std::string temp = dir + "." + stem + marker + ext;
  std::vector<char> buffer(temp.begin(), temp.end());
  buffer.push_back('\0');
  fd_ = ::mkostemps(buffer.data(), static_cast<int>(ext.size()), O_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    const std::string folder = dir.empty() ? std::string("the current folder") : dir;
    if (error == ENAMETOOLONG)
      throw UserError(shownText(path, 200) + ": cannot write " + what +
                      ": the path is too long for the system (" + errnoText(error) +
                      "). Give a shorter path");
    throw UserError(shownText(path, 200) + ": cannot write " + what + " (" + errnoText(error) +
                    " creating a file in " + shownText(folder, 200) +
                    "). Check the folder exists and is writable");
  }
  ::fchmod(fd_, mode);
  write_path_ = buffer.data();
}

AtomicOutputFile::~AtomicOutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !write_path_.empty()) ::unlink(write_path_.c_str());
}

void AtomicOutputFile::write(const std::string& bytes) {
  write(bytes.data(), bytes.size());
}

void AtomicOutputFile::write(const char* data, size_t size) {
  if (!writeAll(fd_, data, size)) {
    const int error = errno;
    throw UserError(path_ + ": cannot write " + what_ + " (" + errnoText(error) +
                    "); nothing was written to it");
  }
}

void AtomicOutputFile::commit() {
  const int fd = fd_;
  fd_ = -1;
  // On disk before the rename: a crash leaves the old file or the new one, whole.
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    throw UserError(path_ + ": cannot write " + what_ + " (" + errnoText(error) +
                    "); nothing was written to it");
  }
  if (::close(fd) != 0) {
    const int error = errno;
    throw UserError(path_ + ": cannot write " + what_ + " (" + errnoText(error) +
                    "); nothing was written to it");
  }
  if (::rename(write_path_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    throw UserError(path_ + ": cannot write " + what_ + " (" + errnoText(error) +
                    " renaming the finished file into place)");
  }
  committed_ = true;
}

std::string AtomicOutputFile::namingTarget(std::string message) const {
  if (write_path_.empty() || write_path_ == path_) return message;
  for (size_t at = message.find(write_path_); at != std::string::npos;
       at = message.find(write_path_, at + path_.size()))
    message.replace(at, write_path_.size(), path_);
  return message;
}

void writeFileAtomically(const std::string& path, const std::string& bytes, const std::string& what,
                         const ProtectedPaths& inputs) {
  AtomicOutputFile out(path, what, inputs);
  out.write(bytes);
  out.commit();
}

std::string finishStandardOutput() {
  std::cout.flush();
  const bool cpp_failed = !std::cout.good();
  errno = 0;
  const bool c_failed = std::fflush(stdout) != 0 || std::ferror(stdout);
  const int error = errno;
  if (!cpp_failed && !c_failed) return {};
  return std::string("cannot write the standard output") +
         (error != 0 ? " (" + errnoText(error) + ")" : std::string()) +
         "; the output is incomplete";
}

}  // namespace deepladder
