// Token data whose ids are bytes (vocab 256): the built-in corpus's splits (held in memory) and
// byte-level text files (memory-mapped). copy() is a widening loop the compiler vectorizes.
#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "trainers/data/mapped_file.h"
#include "trainers/data/token_sources.h"

namespace deepladder::data {
namespace {

class ByteTokenData : public TokenData {
 public:
  // Either `storage` holds the bytes, or `file` maps them; `bytes_` points at whichever.
  ByteTokenData(std::string storage, MappedFile file, std::string label)
      : storage_(std::move(storage)), file_(std::move(file)), label_(std::move(label)) {
    if (file_.data() != nullptr) {
      bytes_ = file_.data();
      size_ = file_.size();
    } else {
      bytes_ = reinterpret_cast<const unsigned char*>(storage_.data());
      size_ = static_cast<int64_t>(storage_.size());
    }
  }

  int64_t size() const override { return size_; }

  void copy(int64_t offset, int64_t count, int32_t* out) const override {
    if (offset < 0 || count < 0 || offset + count > size_) {
      throw std::out_of_range("ByteTokenData::copy: [" + std::to_string(offset) + ", " +
                              std::to_string(offset + count) + ") outside [0, " +
                              std::to_string(size_) + ")");
    }
    const unsigned char* source = bytes_ + offset;
    for (int64_t i = 0; i < count; ++i) out[i] = source[i];
  }

  std::string describe() const override {
    return label_ + " (" + formatTokenCount(size_) + " tokens)";
  }

  int64_t maxTokenId() const override {
    // Lazy: a large mapped file is only read through when someone asks.
    std::call_once(max_once_, [this] {
      unsigned char largest = 0;
      for (int64_t i = 0; i < size_; ++i) largest = std::max(largest, bytes_[i]);
      max_id_ = largest;
    });
    return max_id_;
  }

 private:
  std::string storage_;
  MappedFile file_;
  std::string label_;
  const unsigned char* bytes_ = nullptr;
  int64_t size_ = 0;
  mutable std::once_flag max_once_;
  mutable int64_t max_id_ = 0;
};

// Arbitrary int32 token ids held in memory (tests, small synthetic corpora).
class InMemoryTokenData : public TokenData {
 public:
  InMemoryTokenData(std::vector<int32_t> tokens, std::string label)
      : tokens_(std::move(tokens)), label_(std::move(label)) {
    for (int32_t token : tokens_) max_id_ = std::max<int64_t>(max_id_, token);
  }
  int64_t size() const override { return static_cast<int64_t>(tokens_.size()); }
  void copy(int64_t offset, int64_t count, int32_t* out) const override {
    if (offset < 0 || count < 0 || offset + count > size()) {
      throw std::out_of_range("InMemoryTokenData::copy: range outside the data");
    }
    std::copy_n(tokens_.data() + offset, count, out);
  }
  std::string describe() const override {
    return label_ + " (" + formatTokenCount(size()) + " tokens)";
  }
  int64_t maxTokenId() const override { return max_id_; }

 private:
  std::vector<int32_t> tokens_;
  std::string label_;
  int64_t max_id_ = 0;
};

}  // namespace

std::unique_ptr<TokenData> makeByteTokenData(std::string bytes, std::string label) {
  return std::make_unique<ByteTokenData>(std::move(bytes), MappedFile(), std::move(label));
}

std::unique_ptr<TokenData> openTextTokenData(const std::string& path, const std::string& key) {
  MappedFile file = MappedFile::open(path, key);
  // An empty file maps nothing; hand its (empty) bytes over as storage.
  return std::make_unique<ByteTokenData>(std::string(), std::move(file),
                                         "text file '" + path + "'");
}

std::unique_ptr<TokenData> makeInMemoryTokenData(std::vector<int32_t> tokens,
                                                 std::string description) {
  return std::make_unique<InMemoryTokenData>(std::move(tokens), std::move(description));
}

}  // namespace deepladder::data
