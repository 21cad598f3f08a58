// Worker protocol: every message type survives encode/decode; junk lines are rejected.
#include "core/protocol.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace deepladder::protocol;

TEST(Protocol, MetricRoundTripKeepsNaN) {
  Metric m;
  m.step = 7;
  m.tokens = 700;
  m.flops = 1.5e12;
  m.wall_s = 0.25;
  m.values = {{"train/loss", 2.5}, {"bad", std::nan("")}};
  const std::string line = encode(m);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto decoded = decode(line);
  ASSERT_TRUE(decoded);
  const auto& back = std::get<Metric>(*decoded);
  EXPECT_EQ(back.step, 7);
  EXPECT_EQ(back.tokens, 700);
  EXPECT_DOUBLE_EQ(back.flops, 1.5e12);
  ASSERT_EQ(back.values.size(), 2u);
  EXPECT_TRUE(
      std::isnan(back.values[0].first == "bad" ? back.values[0].second : back.values[1].second));
}

TEST(Protocol, EveryTypeRoundTrips) {
  std::vector<Message> messages = {
      Hello{"r1", "abc", "cpu", 10, 1234, 5.5e6},
      Eval{3, "squaring", 9, 4, 10, 20},
      Lens{4, {0.5, 0.25, 0.0}},
      Checkpoint{5, "/tmp/ckpt-5.pt", "deadbeef"},
      Event{6, "growth", "K 2 -> 4"},
      Done{deepladder::RunStatus::kDiverged, INFINITY, 8, 800, 1e9, 3.0, "loss is inf"},
      Error{"boom"},
  };
  for (const auto& m : messages) {
    auto back = decode(encode(m));
    ASSERT_TRUE(back) << encode(m);
    EXPECT_EQ(back->index(), m.index());
    EXPECT_EQ(encode(*back), encode(m));
  }
}

TEST(Protocol, RejectsNonProtocolLines) {
  std::string why;
  EXPECT_FALSE(decode("hello world", &why));
  EXPECT_FALSE(decode("{\"type\":\"nope\"}", &why));
  EXPECT_NE(why.find("nope"), std::string::npos);
  EXPECT_FALSE(decode("{\"type\":\"metric\"}", &why));  // missing step
}

// Found by fuzzing: a step of 4.2e37 went through nlohmann's get<int64_t>, a float-to-integer
// conversion out of range (undefined behaviour). Integer fields are checked now.
TEST(Protocol, IntegerFieldsOutOfRangeOrFractionalAreRejected) {
  const auto metric = [](const std::string& step) {
    return decode(R"({"type":"metric","step":)" + step + R"(,"values":{}})");
  };
  for (const char* bad : {"4.2e37", "1.5", "\"3\"", "18446744073709551615", "true", "null"})
    EXPECT_FALSE(metric(bad)) << bad;
  const auto twelve = metric("12.0");
  ASSERT_TRUE(twelve);
  EXPECT_EQ(std::get<Metric>(*twelve).step, 12);
  EXPECT_FALSE(decode(R"({"type":"eval","step":1,"correct":1e300,"total":2})"));
  EXPECT_FALSE(decode(R"({"type":"done","status":"finished","final_loss":1,"steps":-1e19})"));
}
