// The eval_passes list (see eval_passes.h).
#include "core/squaring/eval_passes.h"

#include <algorithm>
#include <sstream>

#include "core/errors.h"

namespace deepladder::squaring {

std::vector<int64_t> parseEvalPasses(const std::string& text) {
  auto fail = [&](const std::string& why) -> std::vector<int64_t> {
    throw UserError("squaring.eval_passes = \"" + text + "\": " + why +
                    ". Use a range \"1..16\", a list \"1,2,4,8\" or one number");
  };
  auto number = [&](const std::string& s) -> int64_t {
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      fail("\"" + s + "\" is not a number");
    }
    if (used != s.size()) fail("\"" + s + "\" is not a number");
    if (v < 1 || v > 1024) fail("iterations must lie in 1..1024");
    return v;
  };
  std::vector<int64_t> out;
  const auto dots = text.find("..");
  if (dots != std::string::npos) {
    const int64_t a = number(text.substr(0, dots)), b = number(text.substr(dots + 2));
    if (b < a) fail("the range is empty");
    for (int64_t r = a; r <= b; ++r) out.push_back(r);
    return out;
  }
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(number(item));
  if (out.empty()) fail("no iterations given");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace deepladder::squaring
