// Encoding example sets, exact match and per-cell Eval rows (see squaring_eval.h).
#include "trainers/squaring/squaring_eval.h"

#include <map>

#include "core/squaring/modular_arithmetic.h"

namespace deepladder::trainers::squaring {

namespace {

torch::Tensor int32Tensor(const std::vector<int32_t>& values, int64_t rows, int64_t cols,
                          const torch::Device& device) {
  return torch::from_blob(const_cast<int32_t*>(values.data()), {rows, cols}, torch::kInt32)
      .to(device, torch::kInt64);
}

}  // namespace

EncodedSet encodeSet(const std::vector<sq::Example>& examples, SquaringLayout layout,
                     int64_t seq_len, const torch::Device& device) {
  EncodedSet set;
  set.examples = examples;
  set.layout = layout;
  const int64_t rows = static_cast<int64_t>(examples.size());
  if (layout == SquaringLayout::separate) {
    const sq::SeparateBatch batch = sq::makeSeparateBatch(examples, seq_len);
    set.tokens = int32Tensor(batch.inputs, rows, seq_len, device);
    set.targets = int32Tensor(batch.targets, rows, seq_len, device);
    auto mask = torch::from_blob(const_cast<uint8_t*>(batch.input_mask.data()), {rows, seq_len},
                                 torch::kUInt8)
                    .to(device);
    set.key_bias = keyPaddingBias(mask);
  } else {
    const sq::CausalBatch batch = sq::makeCausalBatch(examples, seq_len);
    set.tokens = int32Tensor(batch.inputs, rows, seq_len, device);
    set.targets = int32Tensor(batch.targets, rows, seq_len, device);
  }
  return set;
}

EncodedSet selectRows(const EncodedSet& set, const torch::Tensor& index) {
  EncodedSet out;
  out.layout = set.layout;
  out.tokens = set.tokens.index_select(0, index);
  out.targets = set.targets.index_select(0, index);
  if (set.key_bias.defined()) out.key_bias = set.key_bias.index_select(0, index);
  return out;  // examples are left empty: minibatches are for training only
}

torch::Tensor answerLoss(const torch::Tensor& logits, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(sq::kIgnoreTarget));
}

std::vector<uint8_t> scoreExactMatch(SquaringModel& model, const EncodedSet& set,
                                     int64_t iterations, int64_t chunk) {
  torch::NoGradGuard no_grad;
  const int64_t rows = set.tokens.size(0), seq_len = set.tokens.size(1);
  std::vector<uint8_t> correct(static_cast<size_t>(rows), 0);
  for (int64_t start = 0; start < rows; start += chunk) {
    const int64_t n = std::min(chunk, rows - start);
    auto bias = set.key_bias.defined() ? set.key_bias.narrow(0, start, n) : torch::Tensor();
    auto logits = model->forward(set.tokens.narrow(0, start, n), bias, LoopPlan{iterations, 0});
    auto predicted = logits.argmax(-1).to(torch::kCPU, torch::kInt32).contiguous();  // (n,T)
    const int32_t* p = predicted.data_ptr<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      const sq::Example& e = set.examples[static_cast<size_t>(start + i)];
      const int32_t* row = p + i * seq_len;
      correct[static_cast<size_t>(start + i)] = set.layout == SquaringLayout::separate
                                                    ? sq::exactMatchSeparateRow(row, seq_len, e)
                                                    : sq::exactMatchCausalRow(row, seq_len, e);
    }
  }
  return correct;
}

double fractionCorrect(const std::vector<uint8_t>& correct) {
  if (correct.empty()) return 0.0;
  int64_t n = 0;
  for (uint8_t c : correct) n += c;
  return static_cast<double>(n) / static_cast<double>(correct.size());
}

double setLoss(SquaringModel& model, const EncodedSet& set, int64_t iterations, int64_t chunk) {
  torch::NoGradGuard no_grad;
  const int64_t rows = set.tokens.size(0);
  double total = 0;
  int64_t counted = 0;
  for (int64_t start = 0; start < rows; start += chunk) {
    const int64_t n = std::min(chunk, rows - start);
    auto bias = set.key_bias.defined() ? set.key_bias.narrow(0, start, n) : torch::Tensor();
    auto targets = set.targets.narrow(0, start, n);
    auto logits = model->forward(set.tokens.narrow(0, start, n), bias, LoopPlan{iterations, 0});
    const int64_t answer_tokens = targets.ne(sq::kIgnoreTarget).sum().item<int64_t>();
    total += answerLoss(logits, targets).item<double>() * static_cast<double>(answer_tokens);
    counted += answer_tokens;
  }
  return counted ? total / static_cast<double>(counted) : 0.0;
}

std::vector<protocol::Eval> cellEvals(int64_t step, const std::string& task,
                                      const std::vector<sq::Example>& examples,
                                      const std::vector<uint8_t>& correct) {
  std::map<std::pair<int, int64_t>, std::pair<int64_t, int64_t>> cells;  // -> (correct, total)
  for (size_t i = 0; i < examples.size(); ++i) {
    auto& cell = cells[{sq::bitLength(examples[i].n), examples[i].t}];
    cell.first += correct[i];
    cell.second += 1;
  }
  std::vector<protocol::Eval> out;
  for (const auto& [key, counts] : cells)
    out.push_back(protocol::Eval{step, task, key.first, key.second, counts.first, counts.second});
  return out;
}

void addToMap(sq::AccuracyMap& map, const std::vector<sq::Example>& examples,
              const std::vector<uint8_t>& correct) {
  for (size_t i = 0; i < examples.size(); ++i) map.add(examples[i], correct[i] != 0);
}

std::vector<std::pair<int64_t, std::vector<int64_t>>> rowsByT(const EncodedSet& set) {
  std::map<int64_t, std::vector<int64_t>> groups;
  for (size_t i = 0; i < set.examples.size(); ++i)
    groups[set.examples[i].t].push_back(static_cast<int64_t>(i));
  return {groups.begin(), groups.end()};
}

namespace {

torch::Tensor indexTensor(const std::vector<int64_t>& rows, const torch::Device& device) {
  return torch::tensor(rows, torch::TensorOptions().dtype(torch::kInt64)).to(device);
}

}  // namespace

std::vector<uint8_t> scoreExactMatchPerT(SquaringModel& model, const EncodedSet& set,
                                         int64_t per_t) {
  std::vector<uint8_t> correct(set.examples.size(), 0);
  for (const auto& [t, rows] : rowsByT(set)) {
    auto group = selectRows(set, indexTensor(rows, set.tokens.device()));
    for (int64_t row : rows) group.examples.push_back(set.examples[static_cast<size_t>(row)]);
    const auto ok = scoreExactMatch(model, group, std::max<int64_t>(1, per_t * t));
    for (size_t i = 0; i < rows.size(); ++i) correct[static_cast<size_t>(rows[i])] = ok[i];
  }
  return correct;
}

double setLossPerT(SquaringModel& model, const EncodedSet& set, int64_t per_t) {
  double weighted = 0, targets = 0;
  for (const auto& [t, rows] : rowsByT(set)) {
    const auto group = selectRows(set, indexTensor(rows, set.tokens.device()));
    const double count = group.targets.ne(sq::kIgnoreTarget).sum().item<double>();
    weighted += count * setLoss(model, group, std::max<int64_t>(1, per_t * t));
    targets += count;
  }
  return targets > 0 ? weighted / targets : 0.0;
}

}  // namespace deepladder::trainers::squaring
