// A read-only memory map of a whole file (RAII), so token shards and text files of any size are
// read through the page cache instead of being copied into RAM. Internal to deepladder_data.
#pragma once

#include <cstdint>
#include <string>

namespace deepladder::data {

class MappedFile {
 public:
  // Maps `path` read-only. Throws UserError "PATH: KEY: PROBLEM. HINT" when the file is missing,
  // unreadable or a directory; `key` is the config field that named it (e.g. "data.train").
  static MappedFile open(const std::string& path, const std::string& key);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const unsigned char* data() const { return data_; }
  int64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  void release();

  const unsigned char* data_ = nullptr;  // nullptr for an empty file (mmap cannot map 0 bytes)
  int64_t size_ = 0;
  std::string path_;
};

}  // namespace deepladder::data
