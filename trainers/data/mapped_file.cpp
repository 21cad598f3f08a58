// Read-only memory maps (see mapped_file.h): open, fstat, mmap, close the descriptor at once.
#include "trainers/data/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/errors.h"

namespace deepladder::data {

MappedFile MappedFile::open(const std::string& path, const std::string& key) {
  // Non-blocking: a FIFO (or a device) named as data is refused below at once instead of
  // waiting in open() for a writer that never comes.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    const std::string hint =
        error == ENOENT ? "Check the path in " + key : "Check the file's permissions";
    throw UserError(
        locatedMessage(path, 0, key, std::string("cannot open: ") + strerror(error), hint));
  }
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    const char* kind = S_ISFIFO(info.st_mode)  ? "a FIFO (named pipe), not a regular file"
                       : S_ISCHR(info.st_mode) ? "a character device, not a regular file"
                       : S_ISDIR(info.st_mode) ? "a directory, not a regular file"
                                               : "not a regular file";
    throw UserError(locatedMessage(path, 0, key, kind,
                                   "Name a file (or, for shards, a glob pattern) in " + key));
  }
  MappedFile file;
  file.path_ = path;
  file.size_ = static_cast<int64_t>(info.st_size);
  if (file.size_ > 0) {
    void* address = mmap(nullptr, static_cast<size_t>(file.size_), PROT_READ, MAP_PRIVATE, fd, 0);
    const int error = errno;
    ::close(fd);
    if (address == MAP_FAILED) {
      throw UserError(
          locatedMessage(path, 0, key, std::string("cannot memory-map: ") + strerror(error)));
    }
    file.data_ = static_cast<const unsigned char*>(address);
  } else {
    ::close(fd);
  }
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      path_(std::move(other.path_)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    path_ = std::move(other.path_);
  }
  return *this;
}

MappedFile::~MappedFile() {
  release();
}

void MappedFile::release() {
  if (data_ != nullptr) munmap(const_cast<unsigned char*>(data_), static_cast<size_t>(size_));
  data_ = nullptr;
  size_ = 0;
}

}  // namespace deepladder::data
