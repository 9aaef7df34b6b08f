#include "ci_relay/intake_scan.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ci_relay/json_fields.hpp"
#include "tests/support/paths.hpp"

namespace relforge::ci_relay {
namespace {

TEST(IntakeScan, PicksTheTopLevelRepositoryFullName) {
  const auto scan = scan_delivery(
      R"({"action":"completed","workflow_job":{"steps":[{"name":"a"}],"labels":["x"],"full_name":"no/1"},)"
      R"("repository":{"id":1,"owner":{"full_name":"no/2"},"topics":["t"],"full_name":"V/Accel","private":false},)"
      R"("organization":{"full_name":"no/3"}})");
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->repo, "V/Accel");
}

TEST(IntakeScan, IgnoresFullNameOutsideTheRepositoryObject) {
  auto scan = scan_delivery(R"({"full_name":"top/level","repository":{"owner":{"full_name":"o/w"}}})");
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->repo, "");
  scan = scan_delivery(R"({"repository":[{"full_name":"in/array"}],"x":{"full_name":"n/o"}})");
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->repo, "");
  scan = scan_delivery(R"({"repository":{"full_name":42}})");
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->repo, "");
}

TEST(IntakeScan, RejectsWhatIsNotAJsonObject) {
  EXPECT_FALSE(scan_delivery(""));
  EXPECT_FALSE(scan_delivery("{not json"));
  EXPECT_FALSE(scan_delivery(R"([{"repository":{"full_name":"a/b"}}])"));
  EXPECT_FALSE(scan_delivery(R"("text")"));
  EXPECT_FALSE(scan_delivery(R"({"a":1} trailing)"));
  EXPECT_FALSE(scan_delivery(R"({"a":1,})"));
  EXPECT_TRUE(scan_delivery(R"(  {"a":[1,2.5,true,null,{"b":"c"}]}  )"));
}

// The scan agrees with a full parse on every real GitHub payload in the fixtures.
TEST(IntakeScan, AgreesWithAFullParseOnTheFixtures) {
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::filesystem::path(relforge::test::source_dir()) / "tests" / "fixtures" / "github-webhooks")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const auto parsed = nlohmann::json::parse(text.str(), nullptr, false);
    const auto scan = scan_delivery(text.str());
    ASSERT_EQ(static_cast<bool>(scan), !parsed.is_discarded() && parsed.is_object()) << entry.path();
    if (scan) {
      EXPECT_EQ(scan->repo, text_field(field(parsed, "repository"), "full_name")) << entry.path();
    }
    ++checked;
  }
  EXPECT_GT(checked, 5);
}

}  // namespace
}  // namespace relforge::ci_relay
