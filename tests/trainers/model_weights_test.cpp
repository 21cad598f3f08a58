// Weights in and out: the safetensors reader and writer against a file laid out by hand, their
// round trip over every dtype, train.init_from (refuses a wrong shape, a missing and an unknown
// tensor by name; loads bit for bit), export from a checkpoint (the resumed run's first loss
// equals the loss of the exported weights on the same batch, bit for bit), and the hf-llama names.
#include "trainers/model_weights.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/architecture.h"
#include "core/data_budget.h"
#include "core/errors.h"
#include "tiny_run.h"
#include "trainers/checkpoint.h"
#include "trainers/data/token_data.h"
#include "trainers/safetensors.h"
#include "trainers/weights_export.h"

namespace deepladder::trainers {
namespace {

namespace fs = std::filesystem;

std::string readBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string errorOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError";
  return "";
}

TEST(Safetensors, ReadsAFileLaidOutByHand) {
  // Header {"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}} (54 bytes) and two spaces of
  // padding to 56, a multiple of 8; then the floats 1.5 and -2 as little-endian bytes.
  const std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}  )";
  ASSERT_EQ(header.size(), 56u);
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  bytes += header;
  const float values[2] = {1.5f, -2.0f};
  bytes.append(reinterpret_cast<const char*>(values), sizeof values);
  const fs::path path = fs::temp_directory_path() / "deepladder-hand.safetensors";
  writeBytes(path, bytes);
  const auto file = safetensors::read(path.string());
  ASSERT_EQ(file.tensors.size(), 1u);
  EXPECT_EQ(file.tensors[0].first, "a");
  EXPECT_TRUE(torch::equal(file.tensors[0].second, torch::tensor({1.5f, -2.0f})));
}

TEST(Safetensors, WriterPadsTheHeaderAndRoundTripsEveryDtypeBitForBit) {
  torch::manual_seed(1);
  const safetensors::NamedTensors tensors = {
      {"f32", torch::randn({3, 5})},
      {"bf16", torch::randn({7}).to(torch::kBFloat16)},
      {"f16", torch::randn({2, 2}).to(torch::kFloat16)},
      {"f64", torch::randn({4}, torch::kFloat64)},
      {"i64", torch::arange(6, torch::kInt64).view({2, 3})},
      {"scalar", torch::tensor(3.25f)},
      {"empty", torch::zeros({0, 4})},
  };
  const fs::path path = fs::temp_directory_path() / "deepladder-roundtrip.safetensors";
  safetensors::write(path.string(), tensors, {{"producer", "test"}});
  const std::string bytes = readBytes(path);
  uint64_t header_bytes = 0;
  std::memcpy(&header_bytes, bytes.data(), 8);
  EXPECT_EQ(header_bytes % 8, 0u);
  const std::string text = bytes.substr(8, header_bytes);
  const size_t json_end = text.rfind('}') + 1;
  EXPECT_EQ(text.find_first_not_of(' ', json_end), std::string::npos);  // padded with spaces
  const auto header = nlohmann::json::parse(text);
  EXPECT_EQ(header["bf16"]["dtype"], "BF16");
  EXPECT_EQ(header["__metadata__"]["producer"], "test");
  const auto file = safetensors::read(path.string());
  ASSERT_EQ(file.tensors.size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    SCOPED_TRACE(tensors[i].first);
    EXPECT_EQ(file.tensors[i].first, tensors[i].first);  // data order = written order
    EXPECT_EQ(file.tensors[i].second.scalar_type(), tensors[i].second.scalar_type());
    EXPECT_TRUE(torch::equal(file.tensors[i].second, tensors[i].second));
  }
}

TEST(Safetensors, RefusesTruncatedAndInconsistentFilesNamingTheTensor) {
  const fs::path path = fs::temp_directory_path() / "deepladder-bad.safetensors";
  safetensors::write(path.string(), {{"w", torch::ones({4, 4})}});
  const std::string good = readBytes(path);
  writeBytes(path, good.substr(0, good.size() - 4));
  EXPECT_NE(errorOf([&] { safetensors::read(path.string()); }).find("tensor \"w\""),
            std::string::npos);
  writeBytes(path, "abc");
  EXPECT_NE(errorOf([&] { safetensors::read(path.string()); }).find("shorter"), std::string::npos);
  std::string wrong_dtype = good;
  const size_t at = wrong_dtype.find("F32");
  wrong_dtype.replace(at, 3, "X32");
  writeBytes(path, wrong_dtype);
  EXPECT_NE(errorOf([&] { safetensors::read(path.string()); }).find("unsupported dtype"),
            std::string::npos);
}

// A safetensors file laid out by hand: the 8-byte length, `header` padded with spaces to a
// multiple of 8, then `data` (the format's specification, safetensors' README).
void writeHandMade(const fs::path& path, const std::string& header, const std::string& data) {
  std::string padded = header;
  padded.append((8 - padded.size() % 8) % 8, ' ');
  std::string bytes(8, '\0');
  const uint64_t size = padded.size();
  std::memcpy(bytes.data(), &size, 8);
  writeBytes(path, bytes + padded + data);
}

TEST(Safetensors, RefusesWhatTheSpecificationForbidsNamingTheFileAndTensor) {
  const fs::path path = fs::temp_directory_path() / "deepladder-spec.safetensors";
  const std::string a = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  const std::string eight(8, '\0');
  struct Case {
    std::string header, data, says;
  };
  for (const Case& c : std::vector<Case>{
           // The same name twice: a JSON parser keeps one silently (the second, pointing at no
           // bytes, would have trained from zeros).
           {"{" + a + R"(,"a":{"dtype":"F32","shape":[0],"data_offsets":[8,8]}})", eight,
            "tensor \"a\" appears twice"},
           {R"({"a":{"dtype":"F32","dtype":"F16","shape":[2],"data_offsets":[0,8]}})", eight,
            "has the key \"dtype\" twice"},
           {R"({"__metadata__":{"k":"1"},"__metadata__":{"k":"2"},)" + a + "}", eight,
            "__metadata__ appears twice"},
           // Offsets that do not tile the data: a gap at the start, between two tensors, bytes
           // after the last, data with no tensor at all.
           {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", std::string(12, '\0'),
            "data bytes [0, 4) belong to no tensor"},
           {"{" + a + R"(,"b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})",
            std::string(16, '\0'),
            "data bytes [8, 12) belong to no tensor (a gap before tensor "
            "\"b\""},
           {"{" + a + "}", std::string(9, '\0'), "1 data bytes follow the end of the last tensor"},
           {"{}", eight, "8 data bytes follow the end of the header"},
           // The header begins with '{' and is padded with spaces only.
           {" {" + a + "}", eight, "does not begin with '{'"},
           {"{" + a + "}\n", eight, "followed by something other than spaces"},
       }) {
    SCOPED_TRACE(c.header);
    writeHandMade(path, c.header, c.data);
    const std::string message = errorOf([&] { safetensors::read(path.string()); });
    EXPECT_NE(message.find(c.says), std::string::npos) << message;
    EXPECT_EQ(message.rfind(path.string(), 0), 0u) << message;
  }
  // What the specification allows still reads: an empty tensor at the end, no bytes for it.
  writeHandMade(path, "{" + a + R"(,"e":{"dtype":"F32","shape":[0,3],"data_offsets":[8,8]}})",
                eight);
  EXPECT_EQ(safetensors::read(path.string()).tensors.size(), 2u);
}

// --- init_from ----------------------------------------------------------------------------------

ModelConfig smallModel() {
  ModelConfig c;
  c.d_model = 16;
  c.n_layer = 2;
  c.n_head = 2;
  c.seq_len = 8;
  c.mlp = MlpKind::swiglu;
  c.mlp_hidden = 32;
  c.tie_embeddings = false;
  return c;
}

TEST(InitFrom, LoadsEveryParameterBitForBit) {
  torch::manual_seed(1);
  GPT source(smallModel());
  const fs::path path = fs::temp_directory_path() / "deepladder-init.safetensors";
  safetensors::write(path.string(), modelWeights(source));
  torch::manual_seed(2);
  GPT target(smallModel());
  loadInitialWeights(target, path.string());
  const auto a = source->named_parameters(), b = target->named_parameters();
  for (const auto& item : a) EXPECT_TRUE(torch::equal(item.value(), b[item.key()])) << item.key();
  const auto idx = torch::randint(0, 256, {2, 8}, torch::kInt64);
  EXPECT_EQ(source->loss(idx, idx).item<float>(), target->loss(idx, idx).item<float>());
}

TEST(InitFrom, RefusesAWrongShapeAMissingAndAnUnknownTensorByName) {
  torch::manual_seed(1);
  GPT source(smallModel());
  const fs::path path = fs::temp_directory_path() / "deepladder-init-bad.safetensors";
  auto weights = modelWeights(source);
  // A wider model's block: the first mismatch is named with both shapes.
  ModelConfig wide = smallModel();
  wide.mlp_hidden = 48;
  GPT other(wide);
  safetensors::write(path.string(), modelWeights(other));
  const std::string shape = errorOf([&] { loadInitialWeights(source, path.string()); });
  EXPECT_NE(shape.find("\"blocks.0.mlp.up.weight\" has shape [96, 16], the model needs [64, 16]"),
            std::string::npos)
      << shape;
  // Missing: the head.
  auto without_head = weights;
  without_head.pop_back();
  ASSERT_EQ(weights.back().first, "unembedding.weight");
  safetensors::write(path.string(), without_head);
  const std::string missing = errorOf([&] { loadInitialWeights(source, path.string()); });
  EXPECT_NE(missing.find("\"unembedding.weight\" is missing"), std::string::npos) << missing;
  // Unknown: an extra tensor.
  auto extra = weights;
  extra.emplace_back("blocks.9.attn.qkv.weight", torch::zeros({48, 16}));
  safetensors::write(path.string(), extra);
  const std::string unknown = errorOf([&] { loadInitialWeights(source, path.string()); });
  EXPECT_NE(unknown.find("\"blocks.9.attn.qkv.weight\" is not a parameter"), std::string::npos)
      << unknown;
}

TEST(InitFrom, RefusesNonFiniteWeightsNamingTheFileAndTensor) {
  torch::manual_seed(1);
  GPT source(smallModel());
  const fs::path path = fs::temp_directory_path() / "deepladder-init-nan.safetensors";
  for (const double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    safetensors::NamedTensors weights = modelWeights(source);
    auto& [name, tensor] = weights.back();
    tensor = tensor.detach().clone();
    tensor.view({-1})[3] = bad;
    safetensors::write(path.string(), weights);
    GPT target(smallModel());
    const torch::Tensor before = target->named_parameters()[name].detach().clone();
    const std::string message = errorOf([&] { loadInitialWeights(target, path.string()); });
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("tensor \"" + name + "\" holds 1 non-finite"), std::string::npos)
        << message;
    EXPECT_NE(message.find("flat index 3"), std::string::npos) << message;
    EXPECT_TRUE(torch::equal(target->named_parameters()[name], before)) << "the model was touched";
  }
}

TEST(InitFrom, AGrowArmLoadsThePreGrowthModelAndGrowsFromIt) {
  ModelConfig c = smallModel();
  c.n_layer = 3;
  applyArmPreset("untied_grow", c);  // cores 2 -> 4
  torch::manual_seed(1);
  GPT source(c);
  const fs::path path = fs::temp_directory_path() / "deepladder-init-grow.safetensors";
  safetensors::write(path.string(), modelWeights(source));
  torch::manual_seed(2);
  GPT target(c);
  loadInitialWeights(target, path.string());
  target->grow();  // the new cores copy the loaded ones
  const auto grown = target->named_parameters();
  EXPECT_TRUE(torch::equal(grown["cores.2.0.attn.qkv.weight"],
                           source->named_parameters()["cores.0.0.attn.qkv.weight"]));
  // The grown model's file is not a pre-growth model.
  safetensors::write(path.string(), modelWeights(target));
  GPT fresh(c);
  EXPECT_NE(errorOf([&] { loadInitialWeights(fresh, path.string()); }).find("is not a parameter"),
            std::string::npos);
}

// --- export from a checkpoint -------------------------------------------------------------------

TEST(WeightsExport, ResumedStepLossEqualsTheExportedWeightsLossBitForBit) {
  const fs::path dir = testing::makeWorkspace("export");
  RunConfig config = testing::tinyConfig(dir);
  config.model.mlp = MlpKind::swiglu;
  config.train.steps = 10;
  TrainerOptions first;
  first.workdir = (dir / "run").string();
  first.max_steps = 5;  // checkpoint at 5
  testing::runTiny(config, first);
  WeightsExportOptions request;
  request.run_id = "1";
  request.workdir = first.workdir;
  request.out = (dir / "out" / "model.safetensors").string();
  const WeightsExportResult written = exportWeights(config, request);
  EXPECT_EQ(written.step, 5);
  const auto description = nlohmann::json::parse(readBytes(written.description_path));
  EXPECT_EQ(description["tokenizer"]["kind"], "bytes");
  EXPECT_EQ(description["model"]["d_model"], 32);
  EXPECT_EQ(description["layout"]["execution_order"].size(), 2u);

  // The resumed run's first logged loss (step 6, batch 5)...
  TrainerOptions second = first;
  second.max_steps = 6;
  second.resume = true;
  const auto resumed = testing::runTiny(config, second).curve("train/loss");
  ASSERT_TRUE(resumed.count(6));
  // ... equals the loss of a model started from the export (train.init_from) on that batch.
  GPT model(config.model);
  loadInitialWeights(model, request.out);
  auto data = data::openTokenData(config.data, data::Split::kTrain, config.model.seq_len);
  const DataBudget budget =
      dataBudget(config.train.steps, config.train.batch_size, config.model.seq_len, data->size());
  data::BatchSampler sampler(*data, config.train.batch_size, config.model.seq_len,
                             static_cast<uint64_t>(config.train.seed), budget.windows_needed);
  sampler.seek(5);
  const data::Batch batch = sampler.next();
  const auto rows = torch::from_blob(const_cast<int32_t*>(batch.tokens.data()),
                                     {batch.rows, batch.seq_len + 1}, torch::kInt32)
                        .to(torch::kInt64);
  torch::NoGradGuard no_grad;
  const float loss =
      model->loss(rows.narrow(1, 0, config.model.seq_len), rows.narrow(1, 1, config.model.seq_len))
          .item<float>();
  EXPECT_EQ(static_cast<double>(loss), resumed.at(6));
  // A step without a checkpoint is refused with the steps there are.
  request.step = 4;
  const std::string none = errorOf([&] { exportWeights(config, request); });
  EXPECT_NE(none.find("checkpoints at steps: 5"), std::string::npos) << none;
}

// --- hf-llama ---------------------------------------------------------------------------------

TEST(HfLlama, RenamesAPlainSwigluModelAndSplitsItsFusedWeights) {
  torch::manual_seed(1);
  GPT model(smallModel());
  const auto tensors = toHfLlama(model);
  std::map<std::string, torch::Tensor> by_name(tensors.begin(), tensors.end());
  const auto& block = *model->blocks[1]->as<BlockImpl>();
  EXPECT_TRUE(torch::equal(by_name.at("model.layers.1.self_attn.k_proj.weight"),
                           block.attn->qkv->weight.narrow(0, 16, 16)));
  EXPECT_TRUE(torch::equal(by_name.at("model.layers.1.mlp.up_proj.weight"),
                           block.mlp->up->weight.narrow(0, 32, 32)));
  EXPECT_TRUE(by_name.count("model.norm.weight"));
  EXPECT_TRUE(by_name.count("lm_head.weight"));
  EXPECT_EQ(by_name.size(), 2u + 9u * 2u + 1u);
  const auto config = hfLlamaConfig(model->config, model);
  EXPECT_EQ(config["intermediate_size"], 32);
  EXPECT_EQ(config["rms_norm_eps"], 1.1920928955078125e-07);
}

TEST(HfLlama, RefusesWhatLlamaCannotExpressWithTheReason) {
  auto refusal = [](const std::function<void(ModelConfig&)>& change) {
    ModelConfig c = smallModel();
    change(c);
    GPT model(c);
    return errorOf([&] { toHfLlama(model); });
  };
  EXPECT_NE(refusal([](ModelConfig& c) { c.qk_norm = true; }).find("qk_norm"), std::string::npos);
  EXPECT_NE(refusal([](ModelConfig& c) { c.norm_gain = false; }).find("norm_gain = false"),
            std::string::npos);
  EXPECT_NE(refusal([](ModelConfig& c) {
              c.arch = Arch::pcc;
              c.n_layer = 3;
            }).find("boundary operator"),
            std::string::npos);
  EXPECT_NE(refusal([](ModelConfig& c) { c.boundary_every = 1; }).find("boundary_every"),
            std::string::npos);
  EXPECT_NE(refusal([](ModelConfig& c) {
              c.mlp = MlpKind::gelu;
              c.mlp_hidden = 0;
            }).find("SwiGLU"),
            std::string::npos);
}

}  // namespace
}  // namespace deepladder::trainers
