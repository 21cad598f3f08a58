// The byte-level tokenizer (vocab 256): each byte of the text is one token id, 0..255, so any
// byte string (UTF-8 or not) round-trips exactly.
#include <stdexcept>
#include <string>

#include "trainers/data/token_data.h"

namespace deepladder::data {

std::vector<int32_t> encodeBytes(const std::string& text) {
  std::vector<int32_t> tokens(text.size());
  for (size_t i = 0; i < text.size(); ++i) tokens[i] = static_cast<unsigned char>(text[i]);
  return tokens;
}

std::string decodeBytes(const std::vector<int32_t>& tokens) {
  std::string text(tokens.size(), '\0');
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || tokens[i] > 255) {
      throw std::invalid_argument("decodeBytes: token " + std::to_string(tokens[i]) +
                                  " at position " + std::to_string(i) +
                                  " is not a byte (vocab 256)");
    }
    text[i] = static_cast<char>(static_cast<unsigned char>(tokens[i]));
  }
  return text;
}

}  // namespace deepladder::data
