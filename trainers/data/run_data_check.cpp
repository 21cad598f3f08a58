// Checking the data of runs before they are queued (see run_data_check.h).
#include "trainers/data/run_data_check.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "core/errors.h"
#include "core/safe_file.h"
#include "trainers/data/token_data.h"

namespace deepladder::data {

namespace {

using SectionKey = std::tuple<DataKind, std::string, std::string>;  // kind, train, val

struct OpenedSection {
  std::unique_ptr<TokenData> train, validation;
  int64_t max_token_id = -1;  // over both splits, shards only; computed once
};

}  // namespace

std::string initFromProblem(const RunConfig& config) {
  const std::string& path = config.train.init_from;
  if (config.task != Task::lm || path.empty()) return {};
  const std::string problem = notRegularFileProblem(path);
  if (problem.empty()) return {};
  return path + ": train.init_from: the weights file " + problem +
         ". Check the path, or write the file with `deepladder export-weights`; \"\" starts "
         "from the seed";
}

void checkRunData(const std::vector<RunDataUse>& runs) {
  for (const RunDataUse& use : runs)
    if (const std::string problem = initFromProblem(*use.config); !problem.empty())
      throw UserError(problem + " (" + use.label + ")");
  // The longest window each data section must hold.
  std::map<SectionKey, int64_t> longest;
  for (const RunDataUse& use : runs) {
    const RunConfig& c = *use.config;
    if (c.task != Task::lm) continue;
    int64_t& seq = longest[{c.data.kind, c.data.train, c.data.val}];
    seq = std::max(seq, c.model.seq_len);
  }
  std::map<SectionKey, OpenedSection> opened;
  for (const RunDataUse& use : runs) {
    const RunConfig& c = *use.config;
    if (c.task != Task::lm) continue;
    const SectionKey key{c.data.kind, c.data.train, c.data.val};
    auto it = opened.find(key);
    try {
      if (it == opened.end()) {
        OpenedSection section;
        section.train = openTokenData(c.data, Split::kTrain, longest[key]);
        section.validation = openTokenData(c.data, Split::kValidation, longest[key]);
        // Shard tokens are uint16: a vocabulary above 65535 holds every id without a scan.
        const bool scan = c.data.kind == DataKind::shards &&
                          std::any_of(runs.begin(), runs.end(), [&](const RunDataUse& other) {
                            return other.config->model.vocab_size <= 65535 &&
                                   SectionKey{other.config->data.kind, other.config->data.train,
                                              other.config->data.val} == key;
                          });
        if (scan)
          section.max_token_id =
              std::max(section.train->maxTokenId(), section.validation->maxTokenId());
        it = opened.emplace(key, std::move(section)).first;
      }
      if (it->second.max_token_id >= c.model.vocab_size)
        throw UserError("model.vocab_size: the shards hold token id " +
                        std::to_string(it->second.max_token_id) + ", but vocab_size is " +
                        std::to_string(c.model.vocab_size) +
                        ". Set vocab_size above the largest token id (50257 for GPT-2 tokens)");
    } catch (const UserError& e) {
      throw UserError(std::string(e.what()) + " (data of " + use.label + ")");
    }
  }
}

}  // namespace deepladder::data
