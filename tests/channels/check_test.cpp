// `index check` finds each kind of damage a store can suffer, says where, and names the fix.
#include "channels/check.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "channels/index.hpp"
#include "channels/publish.hpp"
#include "platform/fs.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;

class CheckTest : public ::testing::Test {
protected:
  fs::path root() const { return m_dir.path() / "store"; }
  fs::path folder() const { return root() / "whl/nightly/cpu/mini"; }
  void publish(const std::string& version, Channel channel = Channel::nightly) {
    PublishOptions options;
    options.root = root();
    options.channel = channel;
    options.signatures = SignaturePolicy::optional;
    options.files = {test::make_wheel(m_dir.path() / ("in-" + version), "mini", version)};
    options.upload_time = "2025-01-02T03:04:05Z";
    const auto result = run_publish(options);
    ASSERT_TRUE(result) << result.error().describe();
  }
  CheckReport check(SignaturePolicy signatures = SignaturePolicy::channel_default) {
    FilesystemObjectStore store(root());
    CheckOptions options;
    options.signatures = signatures;
    options.scratch = m_dir.path() / "scratch";
    return check_store(store, options).value();
  }
  test::ChannelTempDir m_dir;
};

bool has(const CheckReport& report, const std::string& kind, const fs::path& where, const std::string& fix) {
  for (const auto& problem : report.problems) {
    if (problem.kind == kind && problem.where == where.string() && problem.fix.find(fix) != std::string::npos)
      return true;
  }
  return false;
}

std::string describe(const CheckReport& report) {
  std::string out;
  for (const auto& problem : report.problems)
    out += problem.kind + " " + problem.where + ": " + problem.message + " / " + problem.fix + "\n";
  return out;
}

// A store where a variant and a project share a folder (written before publish refused it, or by
// hand) is reported as such, not only through the page that is wrong.
TEST_F(CheckTest, AVariantNamedLikeAProjectIsAFolderClash) {
  publish("1.0+cpu");
  PublishOptions other;
  other.root = m_dir.path() / "other";
  other.channel = Channel::nightly;
  other.files = {test::make_wheel(m_dir.path() / "in-evil", "evil", "1.0+mini")};
  other.upload_time = "2025-01-02T03:04:05Z";
  ASSERT_TRUE(run_publish(other));
  fs::copy(m_dir.path() / "other/whl/nightly/mini", root() / "whl/nightly/mini",
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  const auto report = check();
  EXPECT_TRUE(has(report, "folder-clash", root() / "whl/nightly/mini", "another --variant"))
      << describe(report);
}

TEST_F(CheckTest, APublishedStoreIsClean) {
  publish("1.0+cpu");
  publish("1.1+cpu");
  publish("1.0+cu126");
  const auto report = check();
  EXPECT_TRUE(report.problems.empty()) << describe(report);
  EXPECT_EQ(report.files, 3U);
  EXPECT_EQ(report.pages, 2U * (2 + 2 + 1 + 1));  // 2 variant projects, 2 variant roots, combined, root
}

TEST_F(CheckTest, ChangedBytesAndMissingSidecarsAreFound) {
  publish("1.0+cpu");
  const fs::path wheel = folder() / "mini-1.0+cpu-py3-none-any.whl";
  std::string bytes = platform::read_file(wheel).value();
  bytes[bytes.size() / 2] ^= 1;
  ASSERT_TRUE(platform::write_file_atomic(wheel, bytes));
  fs::remove(wheel.string() + ".metadata");
  const auto report = check();
  EXPECT_EQ(report.problems.size(), 2U) << describe(report);
  EXPECT_TRUE(has(report, "hash-mismatch", wheel, "restore it")) << describe(report);
  EXPECT_TRUE(has(report, "missing-sidecar", wheel.string() + ".metadata", "republish")) << describe(report);
}

// A record's fields go into pages as they are: one whose hashes are no sha256, whose reason a yank
// would refuse, or that names another file is refused by a rebuild and reported by a check.
TEST_F(CheckTest, RecordsThatNoPageMayCarryAreRefused) {
  publish("1.0+cpu");
  const fs::path info = folder() / "mini-1.0+cpu-py3-none-any.whl.info.json";
  const std::string original = platform::read_file(info).value();
  const auto field = [&](const std::string& key, const std::string& value) {
    auto json = nlohmann::json::parse(original);
    json[key] = value;
    if (key == "yanked_reason") json["yanked"] = true;
    return json.dump();
  };
  const std::string page = platform::read_file(folder() / "index.html").value();
  for (const auto& record :
       {field("sha256", "\"><script>alert(1)</script>"), field("sha256", std::string(64, 'A')),
        field("metadata_sha256", "\"><img src=x>"), field("yanked_reason", "\x1b[2J\x07"),
        field("filename", "mini-1.0+cpu-py2-none-any.whl")}) {
    ASSERT_TRUE(platform::write_file_atomic(info, record));
    const auto rebuilt = rebuild_all(root());
    ASSERT_FALSE(rebuilt) << "rebuilt from " << record;
    EXPECT_EQ(rebuilt.error().category(), ErrorCategory::integrity);
    EXPECT_NE(rebuilt.error().message().find(info.string()), std::string::npos) << rebuilt.error().message();
    EXPECT_EQ(platform::read_file(folder() / "index.html").value(), page);
    const auto report = check();
    EXPECT_TRUE(has(report, "bad-record", info, "republish")) << record << "\n" << describe(report);
  }
  ASSERT_TRUE(platform::write_file_atomic(info, original));
  EXPECT_TRUE(rebuild_all(root()));
}

TEST_F(CheckTest, LeftoversAreOrphansWithTheirFix) {
  publish("1.0+cpu");
  ASSERT_TRUE(platform::write_file_atomic(folder() / "mini-0.9+cpu-py3-none-any.whl.metadata", "x"));
  ASSERT_TRUE(platform::write_file_atomic(folder() / ".mini-2.0+cpu-py3-none-any.whl.partial", "x"));
  fs::copy_file(folder() / "mini-1.0+cpu-py3-none-any.whl", folder() / "mini-3.0+cpu-py3-none-any.whl");
  const auto report = check();
  EXPECT_EQ(report.problems.size(), 3U) << describe(report);
  EXPECT_TRUE(has(report, "orphan", folder() / "mini-0.9+cpu-py3-none-any.whl.metadata", "remove the orphan"))
      << describe(report);
  EXPECT_TRUE(has(report, "temporary", folder() / ".mini-2.0+cpu-py3-none-any.whl.partial", "remove "))
      << describe(report);
  EXPECT_TRUE(has(report, "orphan", folder() / "mini-3.0+cpu-py3-none-any.whl", "rerun the publish"))
      << describe(report);
}

TEST_F(CheckTest, PagesAndListingCachesMustSayWhatTheRecordsSay) {
  publish("1.0+cpu");
  publish("1.1+cpu");
  const fs::path page = folder() / "index.json";
  std::string json = platform::read_file(page).value();
  // A page naming a file that is not there: a client would fail on it.
  const auto at = json.find("mini-1.1+cpu");
  ASSERT_NE(at, std::string::npos);
  json.replace(json.find("mini-1.1%2Bcpu"), 14, "mini-1.2%ZZcpu");  // a page can say anything
  ASSERT_TRUE(platform::write_file_atomic(page, json));
  const fs::path cache = root() / "whl/nightly/mini/.relforge-listing";
  ASSERT_TRUE(platform::write_file_atomic(cache, "relforge-listing 2\nend\n"));
  fs::remove(root() / "whl/nightly/index.html");
  auto report = check();
  EXPECT_TRUE(has(report, "stale-page", page, "index rebuild")) << describe(report);
  EXPECT_TRUE(has(report, "broken-link", page, "index rebuild")) << describe(report);
  EXPECT_TRUE(has(report, "stale-listing-cache", cache, "index rebuild")) << describe(report);
  EXPECT_TRUE(has(report, "missing-page", root() / "whl/nightly/index.html", "index rebuild"))
      << describe(report);
  EXPECT_EQ(report.problems.size(), 4U) << describe(report);
  ASSERT_TRUE(rebuild_all(root()));
  report = check();
  EXPECT_TRUE(report.problems.empty()) << describe(report);
}

TEST_F(CheckTest, TwoFilesOfOneIdentityAreFound) {
  publish("1.0+cpu");
  // What two unlocked S3 publishers of equivalent names could leave, made by hand.
  const fs::path other = root() / "whl/nightly/cpu/mini";
  const std::string odd = "Mini-1.0.0+cpu-py3-none-any.whl";
  fs::copy_file(other / "mini-1.0+cpu-py3-none-any.whl", other / odd);
  auto info =
      info_from_json(platform::read_file(other / "mini-1.0+cpu-py3-none-any.whl.info.json").value(), "t")
          .value();
  info.filename = odd;
  ASSERT_TRUE(platform::write_file_atomic(other / (odd + ".info.json"), info_to_json(info)));
  fs::copy_file(other / "mini-1.0+cpu-py3-none-any.whl.metadata", other / (odd + ".metadata"));
  ASSERT_TRUE(rebuild_all(root()));
  const auto report = check();
  EXPECT_EQ(report.problems.size(), 1U) << describe(report);
  EXPECT_TRUE(has(report, "duplicate-identity", other / "mini-1.0+cpu-py3-none-any.whl", "keep one"))
      << describe(report);
  ASSERT_FALSE(report.problems.empty());
  EXPECT_NE(report.problems[0].message.find((other / odd).string()), std::string::npos);
}

TEST_F(CheckTest, UnsignedFilesOnStableAreAProblemUnlessAllowed) {
  publish("1.0+cpu", Channel::stable);
  const auto report = check();
  EXPECT_TRUE(
      has(report, "unsigned", root() / "whl/cpu/mini/mini-1.0+cpu-py3-none-any.whl", "sign the wheel"))
      << describe(report);
  EXPECT_TRUE(check(SignaturePolicy::optional).problems.empty());
}

}  // namespace
}  // namespace relforge::channels
