// Ladders trained elsewhere (`deepladder import`) and TensorBoard out (`deepladder export-tb`),
// run as a user would. The TensorBoard files on the other side come from tests/app/tb_events.py,
// an independent writer and reader (python3's struct, a CRC-32C and a protobuf decoder in Python,
// no code shared with core/tensorboard/): it writes a small ladder the way PyTorch and TF2 log
// (simple_value, float tensors with the plugin named once, tensor_content doubles, histogram and
// text tensors, hparams, config.json) and reads back what export-tb writes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/metric_keys.h"
#include "core/run_status.h"
#include "storage/database.h"
#include "tests/app/cli_fixture.h"

namespace deepladder {
namespace {

using cli_fixture::CliTest;
namespace fs = std::filesystem;

const std::string kScript = std::string(DEEPLADDER_SOURCE_DIR) + "/tests/app/tb_events.py";

class ImportTest : public CliTest {
 protected:
  // The python ladder: logs/<arm>-n<i>/ and results.csv with the same final losses.
  void writePythonLadder() {
    const auto r = runProgram("/usr/bin/python3",
                              {kScript, "write-ladder", path("logs"), path("results.csv")});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  nlohmann::json pythonRead(const std::string& dir) {
    const auto r = runProgram("/usr/bin/python3", {kScript, "read", path(dir)});
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  // The runs of ladder `name`, by run name.
  std::map<std::string, storage::RunRecord> runsOf(storage::Database& db, const std::string& name) {
    std::map<std::string, storage::RunRecord> out;
    const auto id = db.findLadder(name);
    EXPECT_TRUE(id) << name;
    if (!id) return out;
    for (const auto& s : db.listRuns(*id)) out[s.run.name] = s.run;
    return out;
  }
  size_t ladderCount() {
    if (!fs::exists(path("runs.db"))) return 0;
    return size_t(
        storage::Database::open(path("runs.db"))->queryInt("SELECT count(*) FROM ladders"));
  }
  std::string firstEventFile(const std::string& run_dir) {
    for (const auto& e : fs::directory_iterator(path(run_dir)))
      if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0) return e.path();
    return "";
  }
};

// Byte offsets where the records of a TFRecord file start (read from the length fields).
std::vector<size_t> recordOffsets(const std::string& bytes) {
  std::vector<size_t> offsets;
  for (size_t pos = 0; pos + 12 <= bytes.size();) {
    offsets.push_back(pos);
    uint64_t length;
    std::memcpy(&length, bytes.data() + pos, 8);
    pos += 16 + length;
  }
  return offsets;
}

std::string readBytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

// The tag the python ladder logs for each deepladder key (import's default map).
const std::map<std::string, std::string> kKeyOfTag = {{"train/loss", metric_keys::kTrainLoss},
                                                      {"learning_rate", metric_keys::kLearningRate},
                                                      {"eval/loss", metric_keys::kValLoss}};

TEST_F(ImportTest, TensorBoardLogdirStoresEveryScalarAsTheIndependentReaderReadsIt) {
  writePythonLadder();
  const auto r = deepladder({"import", path("logs"), "--db", path("runs.db")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("imported 8 run(s)"), std::string::npos) << r.out;
  const nlohmann::json expected = pythonRead("logs");
  auto db = storage::Database::open(path("runs.db"));
  const auto runs = runsOf(*db, "logs");
  ASSERT_EQ(runs.size(), 8u);
  for (const auto& [name, python] : expected.items()) {
    ASSERT_TRUE(runs.count(name)) << name;
    const storage::RunRecord& run = runs.at(name);
    EXPECT_EQ(run.status, RunStatus::kFinished);
    EXPECT_EQ(run.arm, python["hparams"]["arm"]);    // from the hparams plugin
    EXPECT_EQ(run.size, python["hparams"]["size"]);  // from the hparams plugin
    EXPECT_EQ(double(run.params), python["hparams"]["params"].get<double>());
    const nlohmann::json config = nlohmann::json::parse(run.config_json);
    EXPECT_EQ(run.flops, config["flops"].get<double>());             // from config.json
    EXPECT_EQ(config["model"]["n_layer"], 4 + (name.back() - '0'));  // config.json, nested
    EXPECT_EQ(config["compile"], true);
    // Every scalar, by the deepladder key of its tag; histogram and text tensors are not scalars.
    std::map<std::string, std::vector<std::array<double, 3>>> want;
    for (const auto& s : python["scalars"]) {
      ASSERT_TRUE(kKeyOfTag.count(s[0])) << s[0] << " should not have been read as a scalar";
      want[kKeyOfTag.at(s[0])].push_back(
          {s[1].get<double>(), s[2].get<double>(), s[3].get<double>()});
    }
    EXPECT_EQ(db->metricKeys(run.id), (std::vector<std::string>{"lr", "train/loss", "val/loss"}));
    for (const auto& [key, points] : want) {
      const auto stored = db->readMetric(run.id, key);
      ASSERT_EQ(stored.size(), points.size()) << name << " " << key;
      for (size_t i = 0; i < points.size(); ++i) {
        EXPECT_EQ(double(stored[i].step), points[i][0]);
        EXPECT_EQ(stored[i].value, points[i][1]) << name << " " << key << " " << i;
        EXPECT_EQ(stored[i].wall, points[i][2]);
      }
    }
    EXPECT_EQ(*run.final_loss, want.at("val/loss").back()[1]);
    // Tokens and FLOPs of a row: the run's totals in proportion to its step (200 steps).
    const auto last = db->readMetric(run.id, "train/loss").back();
    EXPECT_EQ(last.flops, run.flops);
    EXPECT_EQ(last.tokens, run.tokens);
  }
  // status lists them like any ladder's runs.
  const auto status = deepladder({"status", "--db", path("runs.db"), "--ladder", "logs"});
  EXPECT_EQ(status.code, 0) << status.err;
  EXPECT_NE(status.out.find("vanilla-n3"), std::string::npos) << status.out;
  // suggest refuses it with a reason, not a TOML parse error.
  const auto suggest = deepladder({"suggest", "--db", path("runs.db"), "--ladder", "logs"});
  EXPECT_EQ(suggest.code, 2);
  EXPECT_NE(suggest.err.find("was imported"), std::string::npos) << suggest.err;
}

TEST_F(ImportTest, DamagedEventFilesAreRefusedWithTheirByteOffsetAndNothingIsImported) {
  writePythonLadder();
  const std::string file = firstEventFile("logs/deep-n2");
  const std::string good = readBytes(file);
  const std::vector<size_t> offsets = recordOffsets(good);
  ASSERT_GT(offsets.size(), 10u);
  struct Damage {
    std::string what, bytes, message;
    size_t offset;
  };
  std::string bad_data = good, bad_length = good;
  bad_data[offsets[7] + 20] ^= 0x10;
  bad_length[offsets[4] + 2] ^= 0x01;
  const std::vector<Damage> damages = {
      {"truncated", good.substr(0, good.size() - 3), "truncated record", offsets.back()},
      {"bad data", bad_data, "bad data CRC", offsets[7]},
      {"bad length", bad_length, "bad length CRC", offsets[4]},
  };
  for (const auto& d : damages) {
    writeBytes(file, d.bytes);
    const auto r = deepladder({"import", path("logs"), "--db", path("runs.db")});
    EXPECT_EQ(r.code, 2) << d.what;
    EXPECT_NE(r.err.find(file + ": byte " + std::to_string(d.offset) + ": " + d.message),
              std::string::npos)
        << d.what << ": " << r.err;
    EXPECT_EQ(ladderCount(), 0u) << d.what << ": nothing may be imported";
  }
  // A good import, then a damaged re-import: the first one stays whole.
  writeBytes(file, good);
  ASSERT_EQ(deepladder({"import", path("logs"), "--db", path("runs.db")}).code, 0);
  const int64_t rows =
      storage::Database::open(path("runs.db"))->queryInt("SELECT count(*) FROM metrics");
  writeBytes(file, bad_data);
  EXPECT_EQ(deepladder({"import", path("logs"), "--db", path("runs.db")}).code, 2);
  auto db = storage::Database::open(path("runs.db"));
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metrics"), rows);
  EXPECT_EQ(runsOf(*db, "logs").size(), 8u);
}

TEST_F(ImportTest, RunsWithoutComputeOrFinalLossAreRefusedNamingTheRunAndTheFix) {
  writePythonLadder();
  fs::remove(path("logs/deep-n1/config.json"));  // no flops, no tokens: no compute
  auto r = deepladder({"import", path("logs"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("run \"deep-n1\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no training compute"), std::string::npos) << r.err;
  EXPECT_EQ(ladderCount(), 0u);
  // A dropped tag leaves no final loss; --set gives the missing tokens (to every run, over their
  // own options), and with the hparams' params that is 6ND.
  r = deepladder({"import", path("logs"), "--db", path("runs.db"), "--tag", "eval/loss=", "--set",
                  "tokens=1e9"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no final loss"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--tag TAG=val/loss"), std::string::npos) << r.err;
  r = deepladder({"import", path("logs"), "--db", path("runs.db"), "--set", "tokens=1e9"});
  EXPECT_EQ(r.code, 0) << r.err;
  auto db = storage::Database::open(path("runs.db"));
  const auto runs = runsOf(*db, "logs");
  EXPECT_EQ(runs.at("deep-n1").tokens, 1000000000);
  EXPECT_EQ(runs.at("deep-n1").flops, 6.0 * 5e7 * 1e9);  // 6 N D
}

TEST_F(ImportTest, CurvesCsvWithNamedColumnsImportsRunsWithTheirOptions) {
  write("curves.csv",
        "\xEF\xBB\xBFrun,step,metric,value,wall_time,arm,size,flops,lr\n"
        "a,0,train/loss,4.5,100,vanilla,d4,1e18,0.001\n"
        "a,10,train/loss,3.5,110,,,,\n"
        "a,10,val_loss,3.25,111,,,,\n"
        "b,0,train/loss,4.25,200,deep,d4,2e18,0.001\n"
        "b,10,val_loss,3.125,211,deep,d4,2e18,0.001\n");
  const auto r = deepladder({"import", path("curves.csv"), "--db", path("runs.db")});
  ASSERT_EQ(r.code, 0) << r.err;
  auto db = storage::Database::open(path("runs.db"));
  const auto runs = runsOf(*db, "curves");
  ASSERT_EQ(runs.size(), 2u);
  const auto& a = runs.at("a");
  EXPECT_EQ(a.arm, "vanilla");
  EXPECT_EQ(a.size, "d4");
  EXPECT_EQ(a.flops, 1e18);
  EXPECT_EQ(*a.final_loss, 3.25);  // val_loss is val/loss
  EXPECT_EQ(nlohmann::json::parse(a.config_json)["lr"], 0.001);
  const auto train = db->readMetric(a.id, "train/loss");
  ASSERT_EQ(train.size(), 2u);
  EXPECT_EQ(train[1].step, 10);
  EXPECT_EQ(train[1].value, 3.5);
  EXPECT_EQ(train[1].wall, 110);
  EXPECT_EQ(train[1].flops, 1e18);  // the last step: the whole run's compute
  EXPECT_EQ(train[0].flops, 0);
  EXPECT_EQ(runs.at("b").arm, "deep");
  EXPECT_EQ(*runs.at("b").final_loss, 3.125);

  // An option with two values for one run is refused at its line; the earlier import stays.
  write("curves.csv",
        "run,step,metric,value,arm,flops\n"
        "a,0,val/loss,4.5,vanilla,1e18\n"
        "a,10,val/loss,3.5,deep,1e18\n");
  const auto bad = deepladder({"import", path("curves.csv"), "--db", path("runs.db")});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("curves.csv:3: arm"), std::string::npos) << bad.err;
  EXPECT_EQ(runsOf(*storage::Database::open(path("runs.db")), "curves").size(), 2u);
}

TEST_F(ImportTest, ExportTbIsReadByTheIndependentReaderAndImportsBackToTheSameRows) {
  writePythonLadder();
  ASSERT_EQ(deepladder({"import", path("logs"), "--db", path("runs.db"), "--name", "first"}).code,
            0);
  const auto e = deepladder({"export-tb", "first", "--db", path("runs.db"), "--out", path("tb")});
  ASSERT_EQ(e.code, 0) << e.err;
  auto db = storage::Database::open(path("runs.db"));
  const auto first = runsOf(*db, "first");

  // The independent reader sees every stored row, its tokens and FLOPs, and the run's facts.
  const nlohmann::json read = pythonRead("tb");
  ASSERT_EQ(read.size(), first.size());
  for (const auto& [name, run] : first) {
    ASSERT_TRUE(read.contains(name)) << name;
    const auto& h = read[name]["hparams"];
    EXPECT_EQ(h["arm"], run.arm);
    EXPECT_EQ(h["size"], run.size);
    EXPECT_EQ(h["flops"].get<double>(), run.flops);
    EXPECT_EQ(h["final_loss"].get<double>(), *run.final_loss);
    EXPECT_EQ(h["model.n_layer"].get<double>(),
              nlohmann::json::parse(run.config_json)["model"]["n_layer"].get<double>());
    std::map<std::string, std::map<int64_t, double>> by_tag;
    for (const auto& s : read[name]["scalars"]) by_tag[s[0]][s[1].get<int64_t>()] = s[2];
    for (const std::string& key : db->metricKeys(run.id))
      for (const auto& p : db->readMetric(run.id, key)) {
        EXPECT_EQ(by_tag[key].at(p.step), p.value) << name << " " << key << " " << p.step;
        EXPECT_EQ(by_tag["deepladder/tokens"].at(p.step), double(p.tokens));
        EXPECT_EQ(by_tag["deepladder/flops"].at(p.step), p.flops);
      }
  }

  // Import the export: the same rows and the same facts.
  ASSERT_EQ(deepladder({"import", path("tb"), "--db", path("runs.db"), "--name", "second"}).code,
            0);
  db = storage::Database::open(path("runs.db"));
  const auto second = runsOf(*db, "second");
  ASSERT_EQ(second.size(), first.size());
  for (const auto& [name, a] : first) {
    const storage::RunRecord& b = second.at(name);
    EXPECT_EQ(b.arm, a.arm);
    EXPECT_EQ(b.size, a.size);
    EXPECT_EQ(b.seed, a.seed);
    EXPECT_EQ(b.flops, a.flops);
    EXPECT_EQ(b.params, a.params);
    EXPECT_EQ(b.tokens, a.tokens);
    EXPECT_EQ(*b.final_loss, *a.final_loss);
    ASSERT_EQ(db->metricKeys(b.id), db->metricKeys(a.id));
    for (const std::string& key : db->metricKeys(a.id)) {
      const auto pa = db->readMetric(a.id, key), pb = db->readMetric(b.id, key);
      ASSERT_EQ(pa.size(), pb.size());
      for (size_t i = 0; i < pa.size(); ++i) {
        EXPECT_EQ(pb[i].step, pa[i].step);
        EXPECT_EQ(pb[i].value, pa[i].value);
        EXPECT_EQ(pb[i].wall, pa[i].wall);
        EXPECT_EQ(pb[i].tokens, pa[i].tokens);
        EXPECT_EQ(pb[i].flops, pa[i].flops);
      }
    }
  }
  // Exporting again into the same directory is refused: TensorBoard would show both.
  const auto again =
      deepladder({"export-tb", "first", "--db", path("runs.db"), "--out", path("tb")});
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("already holds event files"), std::string::npos) << again.err;
}

// Drops the fields that name where the points came from.
nlohmann::json withoutSource(nlohmann::json j) {
  if (j.is_object()) {
    for (const char* k : {"source", "ladder", "label", "db"}) j.erase(k);
    for (auto& [key, value] : j.items()) value = withoutSource(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = withoutSource(value);
  }
  return j;
}

TEST_F(ImportTest, FitOfAnImportedLadderEqualsTheFitOfTheSameDataAsResultsCsv) {
  writePythonLadder();
  ASSERT_EQ(deepladder({"import", path("logs"), "--db", path("runs.db")}).code, 0);
  ASSERT_EQ(
      deepladder({"import", path("results.csv"), "--db", path("runs.db"), "--name", "csv"}).code,
      0);
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--json"},
        std::vector<std::string>{"--json", "--backtest", "1"}}) {
    std::vector<std::string> tb = {"fit",  "--db",       path("runs.db"), "--ladder",
                                   "logs", "--baseline", "vanilla"};
    std::vector<std::string> csv = {"fit", "--db",       path("runs.db"), "--ladder",
                                    "csv", "--baseline", "vanilla"};
    tb.insert(tb.end(), extra.begin(), extra.end());
    csv.insert(csv.end(), extra.begin(), extra.end());
    const auto a = deepladder(tb), b = deepladder(csv);
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    const auto ja = withoutSource(nlohmann::json::parse(a.out)),
               jb = withoutSource(nlohmann::json::parse(b.out));
    EXPECT_EQ(ja, jb) << a.out << "\n---\n" << b.out;
  }
  // The exports too.
  const auto ea =
      deepladder({"export", "--db", path("runs.db"), "--ladder", "logs", "--format", "csv"});
  const auto eb =
      deepladder({"export", "--db", path("runs.db"), "--ladder", "csv", "--format", "csv"});
  ASSERT_EQ(ea.code, 0) << ea.err;
  EXPECT_EQ(ea.out, eb.out);
}

}  // namespace
}  // namespace deepladder
