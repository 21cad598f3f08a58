// Text that leaves the program: bounded echoes, the UTF-8 check, JSON that never throws; the
// protocol encoder with a non-UTF-8 message (a worker aborted inside the JSON library while
// reporting a shard path with Latin-1 bytes), and a done with an unknown status.
#include "core/safe_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/protocol.h"
#include "core/run_outcome.h"

using namespace deepladder;

TEST(SafeText, ShownTextIsBoundedAndPrintable) {
  EXPECT_EQ(shownText("plain"), "plain");
  EXPECT_EQ(shownText("a\nb\x1b"), "a\\x0Ab\\x1B");
  EXPECT_EQ(shownText("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 kept
  EXPECT_EQ(shownText("caf\xe9"), "caf\\xE9");         // Latin-1 escaped
  const std::string shown = shownText(std::string(5 << 20, 'x'));
  EXPECT_LT(shown.size(), kMaxEchoBytes + 40);
  EXPECT_NE(shown.find("(5242880 bytes)"), std::string::npos) << shown;
}

TEST(SafeText, Utf8Check) {
  EXPECT_TRUE(isValidUtf8("ascii and caf\xc3\xa9 and \xf0\x9f\x98\x80"));
  EXPECT_FALSE(isValidUtf8("\xe9"));
  EXPECT_FALSE(isValidUtf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(isValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(isValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(isValidUtf8("\xe2\x82"));          // truncated
}

TEST(SafeText, LocatedMessagesAreBounded) {
  const std::string huge(5 << 20, 'k');
  const std::string message = locatedMessage("f.toml", 3, huge, "unknown key " + huge, "hint");
  EXPECT_LT(message.size(), 3000u);
  EXPECT_EQ(message.rfind("f.toml:3: ", 0), 0u);
}

TEST(SafeText, JsonDumpReplacesInvalidUtf8) {
  nlohmann::json j = {{"arm", std::string("bad\xff")}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what the library does by default
  EXPECT_EQ(dumpJson(j), "{\"arm\":\"bad\xef\xbf\xbd\"}");
}

TEST(Protocol, ErrorWithNonUtf8TextIsEncodedNotThrown) {
  const std::string path = "/data/shard_\xe9t\xe9.bin: bad magic";
  std::string line;
  ASSERT_NO_THROW(line = protocol::encode(protocol::Error{path}));
  const auto decoded = protocol::decode(line);
  ASSERT_TRUE(decoded);
  const auto* error = std::get_if<protocol::Error>(&*decoded);
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("bad magic"), std::string::npos);
  EXPECT_TRUE(isValidUtf8(error->message));
}

TEST(Protocol, DoneWithAnUnknownStatusIsNotAProtocolMessage) {
  std::string why;
  EXPECT_FALSE(protocol::decode(R"({"type":"done","status":"exploded","final_loss":1})", &why));
  EXPECT_NE(why.find("exploded"), std::string::npos) << why;
  EXPECT_TRUE(protocol::decode(R"({"type":"done","status":"diverged","final_loss":"nan"})"));
}

TEST(RunOutcome, DoneStatusThatIsNoEndOfTrainingFailsAndBadInputSaysSo) {
  ProcessExit ok;
  ok.exited = true;
  // The protocol decodes only finished and diverged (above); anything else in a done fails.
  EXPECT_EQ(decideRunOutcome(RunStatus::kQueued, "", ok, false, "").status, RunStatus::kFailed);
  EXPECT_EQ(decideRunOutcome(RunStatus::kDiverged, "", ok, false, "").status, RunStatus::kDiverged);
  ProcessExit bad_input;
  bad_input.exited = true;
  bad_input.code = kExitBadInput;
  EXPECT_TRUE(isBadInputExit(bad_input));
  EXPECT_FALSE(isBadInputExit(ok));
  const RunOutcome outcome = decideRunOutcome(std::nullopt, "", bad_input, false, "data: no file");
  EXPECT_EQ(outcome.status, RunStatus::kFailed);
  EXPECT_NE(outcome.message.find("bad input: not retried: data: no file"), std::string::npos)
      << outcome.message;
}
