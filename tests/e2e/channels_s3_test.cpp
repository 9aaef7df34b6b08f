// End to end: `relforge publish --store s3://...` and `relforge index rebuild --store s3://...`
// against a real S3 server (s3rver on loopback), read back from s3rver's own files; conflicts,
// rejected credentials and an unreachable endpoint give their exit codes and change no page.
#include <filesystem>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/digest.hpp"
#include "tests/channels/hostile_s3.hpp"
#include "tests/channels/s3_support.hpp"
#include "tests/channels/support.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;
using relforge::test::answer;
using relforge::test::ScriptedRequest;
using relforge::test::ScriptedServer;

class ChannelsS3E2e : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_dir = new ChannelTempDir();
    s_server = new S3rver(s_dir->path(), "relforge-e2e");
  }
  static void TearDownTestSuite() {
    delete s_server;
    delete s_dir;
  }
  void SetUp() override {
    ASSERT_GT(s_server->port(), 0);
    m_prefix = std::string("ch/") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  std::string store_flags(const std::string& endpoint = "") const {
    return "--store s3://relforge-e2e/" + m_prefix + " --s3-endpoint " +
           (endpoint.empty() ? s_server->endpoint() : endpoint) + " --s3-region us-east-1";
  }
  static RunResult cli(const std::string& args, const std::string& key = k_s3rver_key) {
    return run_shell("env AWS_ACCESS_KEY_ID=" + shell_quote(key) + " AWS_SECRET_ACCESS_KEY=" +
                     k_s3rver_secret + " " + shell_quote(relforge::test::relforge_binary()) + " " + args);
  }
  fs::path object(const std::string& key) const { return s_server->object_file(m_prefix + "/" + key); }
  fs::path wheel(const std::string& name, const std::string& version, const std::string& extra = "") {
    return make_wheel(m_dir.path() / ("in-" + name + "-" + version + std::to_string(++m_wheels)), name,
                      version, extra);
  }
  // Every link on every page of the bucket names an object whose bytes have the advertised sha256.
  int expect_consistent_bucket() const {
    const std::regex link("href=\"([^\"#]+)#sha256=([0-9a-f]{64})\"");
    int links = 0;
    const fs::path base = s_server->object_file(m_prefix + "/x").parent_path();
    for (const auto& entry : fs::recursive_directory_iterator(base)) {
      if (entry.path().filename() != "index.html._S3rver_object") continue;
      const std::string html = slurp(entry.path());
      for (auto it = std::sregex_iterator(html.begin(), html.end(), link); it != std::sregex_iterator();
           ++it) {
        std::string target = (*it)[1].str();
        target = std::regex_replace(target, std::regex("%2B"), "+");
        const fs::path file = (entry.path().parent_path() / (target + "._S3rver_object")).lexically_normal();
        EXPECT_TRUE(fs::exists(file)) << file;
        EXPECT_EQ(platform::to_hex(platform::sha256(slurp(file))), (*it)[2].str()) << file;
        ++links;
      }
    }
    return links;
  }

  static inline ChannelTempDir* s_dir = nullptr;
  static inline S3rver* s_server = nullptr;
  ChannelTempDir m_dir;
  std::string m_prefix;
  int m_wheels = 0;
};

TEST_F(ChannelsS3E2e, PublishesTwoWheelsThenRebuildsTheIndexFromTheBucket) {
  const auto one = wheel("mini", "1.0+cpu");
  const auto two = wheel("mini", "1.1+cpu");
  const auto published = cli("publish --channel nightly " + store_flags() + " " + shell_quote(one.string()) +
                             " " + shell_quote(two.string()));
  ASSERT_EQ(published.exit_code, 0) << published.err;
  EXPECT_NE(published.out.find("published nightly/cpu/mini/mini-1.1+cpu-py3-none-any.whl"), std::string::npos)
      << published.out;
  EXPECT_EQ(slurp(object("whl/nightly/cpu/mini/mini-1.0+cpu-py3-none-any.whl")), slurp(one));
  // Variant page, variant root, combined page, combined root: 2 files on each project page.
  EXPECT_EQ(expect_consistent_bucket(), 4);

  fs::remove(object("whl/nightly/cpu/mini/index.html"));
  fs::remove(object("whl/nightly/index.json"));
  const auto rebuilt = cli("index rebuild --json " + store_flags());
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  const auto summary = nlohmann::json::parse(rebuilt.out);
  EXPECT_EQ(summary["files"], 2);
  EXPECT_EQ(summary["pages"], 4);
  EXPECT_NE(slurp(object("whl/nightly/cpu/mini/index.html")).find("mini-1.0%2Bcpu"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(slurp(object("whl/nightly/index.json")))["projects"][0]["name"], "mini");
  EXPECT_EQ(expect_consistent_bucket(), 4);
}

TEST_F(ChannelsS3E2e, NewBytesUnderAPublishedNameExitFiveAndChangeNothing) {
  const auto original = wheel("mini", "1.0+cpu");
  ASSERT_EQ(cli("publish " + store_flags() + " " + shell_quote(original.string())).exit_code, 0);
  const std::string page = slurp(object("whl/nightly/cpu/mini/index.html"));
  const auto changed = wheel("mini", "1.0+cpu", "--payload 'VALUE = 3'");
  const auto refused = cli("publish " + store_flags() + " " + shell_quote(changed.string()));
  EXPECT_EQ(refused.exit_code, 5) << refused.err;
  EXPECT_TRUE(refused.out.empty());
  EXPECT_NE(refused.err.find("immutable"), std::string::npos) << refused.err;
  EXPECT_EQ(slurp(object("whl/nightly/cpu/mini/mini-1.0+cpu-py3-none-any.whl")), slurp(original));
  EXPECT_EQ(slurp(object("whl/nightly/cpu/mini/index.html")), page);
}

TEST_F(ChannelsS3E2e, RejectedCredentialsExitEightAndUnreachableEndpointExitsSeven) {
  const auto file = wheel("mini", "1.0+cpu");
  const auto rejected = cli("publish " + store_flags() + " " + shell_quote(file.string()), "AKIAUNKNOWN");
  EXPECT_EQ(rejected.exit_code, 8) << rejected.err;
  EXPECT_NE(rejected.err.find("AWS_ACCESS_KEY_ID"), std::string::npos) << rejected.err;

  const auto missing = run_shell("env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY " +
                                 shell_quote(relforge::test::relforge_binary()) + " publish " +
                                 store_flags() + " " + shell_quote(file.string()));
  EXPECT_EQ(missing.exit_code, 8) << missing.err;
  EXPECT_NE(missing.err.find("AWS_SECRET_ACCESS_KEY"), std::string::npos) << missing.err;

  const auto unreachable =
      cli("publish " + store_flags("http://127.0.0.1:1") + " " + shell_quote(file.string()));
  EXPECT_EQ(unreachable.exit_code, 7) << unreachable.err;
  EXPECT_NE(unreachable.err.find("127.0.0.1:1"), std::string::npos) << unreachable.err;

  EXPECT_FALSE(fs::exists(object("whl/nightly/cpu/mini/mini-1.0+cpu-py3-none-any.whl")));
  EXPECT_FALSE(fs::exists(object("whl/nightly/cpu/mini/index.html")));
}

TEST(ChannelsS3Hostile, AListingThatClimbsOutOfTheStoreWritesNothingAndExitsNine) {
  // Every listing names a folder and an object whose ".." segments libcurl would resolve: pages
  // written for them would land in another prefix or another bucket.
  ScriptedServer server([](const ScriptedRequest& request) {
    if (request.method == "GET" && request.target.find("list-type=2") != std::string::npos) {
      return answer(
          200,
          "<ListBucketResult><CommonPrefixes><Prefix>pfx/whl/../../../other-bucket/</Prefix>"
          "</CommonPrefixes><Contents><Key>pfx/whl/nightly/../../../../other-bucket/index.html</Key>"
          "<Size>1</Size></Contents><IsTruncated>false</IsTruncated></ListBucketResult>");
    }
    return answer(404, "");
  });
  const auto rebuilt = run_shell(
      "env AWS_ACCESS_KEY_ID=k AWS_SECRET_ACCESS_KEY=s " + shell_quote(relforge::test::relforge_binary()) +
      " index rebuild --store s3://bucket/pfx --s3-endpoint " + server.endpoint() + " --s3-region us-east-1");
  EXPECT_EQ(rebuilt.exit_code, 9) << rebuilt.err;
  EXPECT_NE(rebuilt.err.find("has a '..' segment"), std::string::npos) << rebuilt.err;
  const auto requests = server.requests();
  EXPECT_FALSE(requests.empty());
  for (const auto& request : requests) {
    EXPECT_EQ(request.method, "GET") << request.target;
    EXPECT_TRUE(request.target.starts_with("/bucket?") || request.target.starts_with("/bucket/pfx/"))
        << request.target;
  }
}

}  // namespace
}  // namespace relforge::test
