// Regular files only, links refused, outputs written whole or not at all (see safe_file.h).
#include "core/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "core/errors.h"

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

// --- AtomicOutputFile ----------------------------------------------------------------------------

AtomicOutputFile::AtomicOutputFile(const std::string& path, const std::string& what)
    : path_(path), what_(what) {
  if (path.empty()) throw UserError(what + ": the output path is empty");
  struct stat st {};
  mode_t mode = 0;  // of the file it replaces, or the umask's default
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      struct stat target {};
      const bool stream =
          ::stat(path.c_str(), &target) == 0 &&
          (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode) || path.rfind("/dev/", 0) == 0);
      if (stream)
        st = target;  // /dev/stdout and the like: a stream, written in place
      else
        throw UserError(path + ": " + what +
                        " is a symbolic link; deepladder does not write through links. Give the "
                        "path it points to, or remove it");
    }
    if (S_ISDIR(st.st_mode))
      throw UserError(path + ": " + what + " is a directory; give a file name");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || path.rfind("/dev/", 0) == 0) {
      fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd_ < 0) throw UserError(path + ": cannot open " + what + " (" + errnoText(errno) + ")");
      direct_ = true;
      write_path_ = path;
      return;
    }
    if (!S_ISREG(st.st_mode)) throw UserError(path + ": " + what + " is " + kindOf(st.st_mode));
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  // A temporary beside the target (same folder, so the rename is atomic), with its extension (a
  // writer may choose the format by it).
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.rfind('.');
  const std::string ext = dot == std::string::npos || dot == 0 ? "" : base.substr(dot);
  std::string temp = dir + "." + base.substr(0, base.size() - ext.size()) + ".partial-XXXXXX" + ext;
  std::vector<char> buffer(temp.begin(), temp.end());
  buffer.push_back('\0');
  fd_ = ::mkostemps(buffer.data(), static_cast<int>(ext.size()), O_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    throw UserError(path + ": cannot write " + what + " (" + errnoText(error) + " creating a " +
                    "file in " + (dir.empty() ? std::string("the current folder") : dir) +
                    "). Check the folder exists and is writable");
  }
  ::fchmod(fd_, mode);
  write_path_ = buffer.data();
}

AtomicOutputFile::~AtomicOutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !direct_ && !write_path_.empty()) ::unlink(write_path_.c_str());
}

void AtomicOutputFile::write(const std::string& bytes) {
  if (!writeAll(fd_, bytes.data(), bytes.size())) {
    const int error = errno;
    throw UserError(path_ + ": cannot write " + what_ + " (" + errnoText(error) + ")" +
                    (direct_ ? std::string() : "; nothing was written to it"));
  }
}

void AtomicOutputFile::commit() {
  const int fd = fd_;
  fd_ = -1;
  // A device or FIFO has nothing to sync (EINVAL); a regular file is on disk before the rename.
  if (!direct_ && ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    throw UserError(path_ + ": cannot write " + what_ + " (" + errnoText(error) +
                    "); nothing was written to it");
  }
  if (::close(fd) != 0) {
    const int error = errno;
    throw UserError(path_ + ": cannot write " + what_ + " (" + errnoText(error) + ")");
  }
  if (direct_) {
    committed_ = true;
    return;
  }
  if (::rename(write_path_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    throw UserError(path_ + ": cannot write " + what_ + " (" + errnoText(error) +
                    " renaming the finished file into place)");
  }
  committed_ = true;
}

void writeFileAtomically(const std::string& path, const std::string& bytes,
                         const std::string& what) {
  AtomicOutputFile out(path, what);
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
