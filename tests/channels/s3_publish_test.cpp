// Publishing into an S3 bucket (s3rver on loopback): the same checks and pages as the filesystem
// publish, index pages only after every file, rebuild from the bucket listing, immutable files,
// and a failing or refusing server that leaves every index page as it was.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "channels/index.hpp"
#include "channels/publish.hpp"
#include "channels/s3_store.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "platform/http_server.hpp"
#include "signing/bundle.hpp"
#include "signing/keys.hpp"
#include "tests/channels/s3_support.hpp"
#include "tests/channels/support.hpp"
#include "tests/support/e2e.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> k_pages = {"cpu/mini", "cpu", "mini", ""};

class S3PublishTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_dir = new test::ChannelTempDir();
    s_server = new test::S3rver(s_dir->path(), "relforge-publish");
  }
  static void TearDownTestSuite() {
    delete s_server;
    delete s_dir;
  }
  void SetUp() override {
    ASSERT_GT(s_server->port(), 0);
    m_prefix = std::string("p/") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    S3Options with;
    with.location = {"relforge-publish", m_prefix};
    with.endpoint = s_server->endpoint();
    with.access_key = test::k_s3rver_key;
    with.secret_key = test::k_s3rver_secret;
    auto made = make_s3_store(with);
    ASSERT_TRUE(made) << made.error().describe();
    m_store = std::move(*made);
  }
  PublishOptions options(Channel channel, std::vector<fs::path> files) const {
    PublishOptions out;
    out.root = m_dir.path() / "fs-store";
    out.channel = channel;
    out.files = std::move(files);
    out.upload_time = "2025-01-02T03:04:05Z";
    return out;
  }
  // s3rver's own file for a key of this test's store: what a reader of the bucket gets.
  std::string on_disk(const std::string& key) const {
    const fs::path path = s_server->object_file(m_prefix + "/" + key);
    return fs::exists(path) ? test::slurp(path) : std::string();
  }

  static inline test::ChannelTempDir* s_dir = nullptr;
  static inline test::S3rver* s_server = nullptr;
  test::ChannelTempDir m_dir;
  std::string m_prefix;
  std::unique_ptr<ObjectStore> m_store;
};

TEST_F(S3PublishTest, UploadsFilesBeforePagesAndRendersWhatTheFilesystemPublishRenders) {
  const auto one = test::make_wheel(m_dir.path() / "in", "mini", "1.0+cpu", "--requires-python '>=3.8'");
  const auto two = test::make_wheel(m_dir.path() / "in", "mini", "1.1+cpu");
  auto with = options(Channel::nightly, {one, two});
  std::vector<std::string> stages;
  bool page_before_files = false;
  with.on_stage = [&](std::string_view stage) {
    stages.emplace_back(stage);
    // Every file is in the bucket before any page is.
    if (stage == "files-written") page_before_files = !on_disk("whl/nightly/cpu/mini/index.html").empty();
  };
  auto published = run_publish(with, *m_store);
  ASSERT_TRUE(published) << published.error().describe();
  ASSERT_EQ(published->size(), 2U);
  EXPECT_EQ(published->at(0).state, PublishState::added);
  EXPECT_FALSE(page_before_files);
  ASSERT_GE(stages.size(), 2U);
  EXPECT_EQ(stages.at(0), "checked");
  EXPECT_EQ(stages.at(1), "files-written");
  EXPECT_EQ(stages.size(), 2U + k_pages.size());

  const std::string wheel_key = "whl/nightly/cpu/mini/mini-1.0+cpu-py3-none-any.whl";
  EXPECT_TRUE(on_disk(wheel_key) == test::slurp(one));
  EXPECT_NE(on_disk(wheel_key + ".metadata").find("Name: mini"), std::string::npos);
  const std::string html = on_disk("whl/nightly/cpu/mini/index.html");
  const std::string sha = platform::to_hex(platform::sha256_file(one).value());
  EXPECT_NE(html.find("href=\"mini-1.0%2Bcpu-py3-none-any.whl#sha256=" + sha + "\""), std::string::npos)
      << html;
  const auto json = nlohmann::json::parse(on_disk("whl/nightly/cpu/mini/index.json"));
  EXPECT_EQ(json["versions"], nlohmann::json::array({"1.0+cpu", "1.1+cpu"}));
  EXPECT_NE(on_disk("whl/nightly/mini/index.html").find("../cpu/mini/mini-1.1%2Bcpu"), std::string::npos);
  EXPECT_NE(on_disk("whl/nightly/index.html").find("href=\"mini/\""), std::string::npos);

  // The filesystem publish of the same wheels renders the same bytes for every page.
  ASSERT_TRUE(run_publish(with));
  for (const auto& dir : k_pages) {
    for (const char* name : {"/index.html", "/index.json"}) {
      const std::string relative = "whl/nightly" + (dir.empty() ? "" : "/" + dir) + name;
      EXPECT_EQ(on_disk(relative), platform::read_file(with.root / relative).value_or("?")) << relative;
    }
  }
}

TEST_F(S3PublishTest, IndexRebuildRecreatesEveryPageFromTheBucketListing) {
  const auto one = test::make_wheel(m_dir.path() / "in", "mini", "1.0+cpu");
  const auto two = test::make_wheel(m_dir.path() / "in", "other", "2.0+cu126");
  ASSERT_TRUE(run_publish(options(Channel::nightly, {one}), *m_store));
  auto unsigned_test = options(Channel::test, {two});
  unsigned_test.signatures = SignaturePolicy::optional;
  ASSERT_TRUE(run_publish(unsigned_test, *m_store));
  const std::string before = on_disk("whl/nightly/cpu/mini/index.json");
  ASSERT_FALSE(before.empty());
  for (const auto& key :
       {"whl/nightly/cpu/mini/index.json", "whl/nightly/index.html", "whl/test/other/index.html"}) {
    ASSERT_TRUE(m_store->remove(key));
  }
  auto summary = rebuild_store(*m_store);
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_EQ(summary->files, 2U);
  EXPECT_EQ(summary->pages, 8U);  // per channel: project, variant root, combined project, combined root
  EXPECT_EQ(on_disk("whl/nightly/cpu/mini/index.json"), before);
  EXPECT_NE(on_disk("whl/nightly/index.html").find("mini/"), std::string::npos);
  EXPECT_NE(on_disk("whl/test/other/index.html").find("../cu126/other/other-2.0%2Bcu126"), std::string::npos);
  // Stable has no variant yet, so it gets no pages.
  EXPECT_TRUE(on_disk("whl/index.html").empty());
}

TEST_F(S3PublishTest, RepublishIsUnchangedAndNewBytesUnderAPublishedNameAreRefused) {
  const auto wheel = test::make_wheel(m_dir.path() / "in", "mini", "1.0+cpu");
  ASSERT_TRUE(run_publish(options(Channel::nightly, {wheel}), *m_store));
  auto again = run_publish(options(Channel::nightly, {wheel}), *m_store);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->front().state, PublishState::unchanged);
  const std::string page = on_disk("whl/nightly/cpu/mini/index.html");

  const auto changed = test::make_wheel(m_dir.path() / "changed", "mini", "1.0+cpu", "--payload 'VALUE = 2'");
  ASSERT_NE(test::slurp(changed), test::slurp(wheel));
  auto refused = run_publish(options(Channel::nightly, {changed}), *m_store);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().describe().find("immutable"), std::string::npos) << refused.error().describe();
  EXPECT_TRUE(on_disk("whl/nightly/cpu/mini/mini-1.0+cpu-py3-none-any.whl") == test::slurp(wheel));
  EXPECT_EQ(on_disk("whl/nightly/cpu/mini/index.html"), page);
}

TEST_F(S3PublishTest, TheDownloadThatNamesTheDifferenceWritesThroughNoPlantedLink) {
  // The published copy was downloaded to $TMPDIR/.relforge-diff-<hash of the key>.whl: a name
  // anyone on the machine could compute and plant a link at, to have the download written over a
  // file of the publisher's. Downloads now go into a new private folder.
  const auto wheel = test::make_wheel(m_dir.path() / "in", "mini", "1.0+cpu");
  ASSERT_TRUE(run_publish(options(Channel::nightly, {wheel}), *m_store));
  const fs::path tmp = m_dir.path() / "tmp";
  fs::create_directories(tmp);
  const fs::path victim = m_dir.path() / "victim";
  std::ofstream(victim) << "precious";
  const std::string key = "whl/nightly/cpu/mini/mini-1.0+cpu-py3-none-any.whl";
  const std::string old_name = ".relforge-diff-" + std::to_string(std::hash<std::string>{}(key)) + ".whl";
  fs::create_symlink(victim, tmp / old_name);
  fs::create_symlink(victim, tmp / ("." + old_name + ".download"));

  const auto changed = test::make_wheel(m_dir.path() / "changed", "mini", "1.0+cpu", "--payload 'VALUE = 2'");
  test::ScopedEnv scope("TMPDIR", tmp.string());
  auto refused = run_publish(options(Channel::nightly, {changed}), *m_store);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().describe().find("it differs in: changed mini/"), std::string::npos)
      << refused.error().describe();
  EXPECT_EQ(test::slurp(victim), "precious");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(tmp)) left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"." + old_name + ".download", old_name}));
}

TEST_F(S3PublishTest, SignedWheelsCarryBundleAndProvenanceOnStable) {
  const auto wheel = test::make_wheel(m_dir.path() / "in", "mini", "2.0+cpu");
  auto key = signing::generate_key(signing::KeyType::ecdsa_p256, m_dir.path() / "keys");
  ASSERT_TRUE(key) << key.error().describe();
  const auto bundle = signing::sign_file(wheel, signing::PrivateKey::load(key->private_key).value(), {});
  ASSERT_TRUE(bundle);
  ASSERT_TRUE(platform::write_file_atomic(wheel.string() + ".sigstore.json", *bundle));

  auto unsigned_policy = run_publish(options(Channel::stable, {wheel}), *m_store);
  ASSERT_FALSE(unsigned_policy);  // stable requires a verified signature: no --key, no publish
  EXPECT_TRUE(on_disk("whl/cpu/mini/mini-2.0+cpu-py3-none-any.whl").empty());

  auto with = options(Channel::stable, {wheel});
  with.public_key = key->public_key;
  auto published = run_publish(with, *m_store);
  ASSERT_TRUE(published) << published.error().describe();
  EXPECT_TRUE(published->front().signed_bundle);
  EXPECT_EQ(on_disk("whl/cpu/mini/mini-2.0+cpu-py3-none-any.whl.sigstore.json"), *bundle);
  EXPECT_NE(on_disk("whl/cpu/mini/mini-2.0+cpu-py3-none-any.whl.provenance").find("attestation_bundles"),
            std::string::npos);
  EXPECT_NE(on_disk("whl/cpu/mini/index.html").find("data-provenance="), std::string::npos);
}

// A stand-in S3 that fails the way real servers do, recording what it was asked to store.
class FailingS3 {
public:
  explicit FailingS3(std::function<int(const std::string& method, const std::string& path)> status)
      : m_status(std::move(status)) {
    m_server.set_max_body_bytes(std::size_t{1} << 24U);
    for (const char* method : {"GET", "HEAD", "PUT"}) {
      m_server.route(method, "/.*", [this](const platform::HttpRequest& request) {
        const int code = m_status(request.method, request.path);
        // A listing of the (empty) bucket, as real servers answer it.
        if (request.method == "GET" && request.path == "/bucket" && code == 404) {
          return platform::HttpResponse::text(
              200, "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
        }
        if (request.method == "PUT" && code == 200) {
          const std::lock_guard guard(m_mutex);
          m_stored.push_back(request.path);
        }
        if (code == 200) return platform::HttpResponse::text(200, "");
        const std::string name = code == 403   ? "SignatureDoesNotMatch"
                                 : code == 404 ? "NoSuchKey"
                                               : "InternalError";
        auto response = platform::HttpResponse::text(
            code, "<Error><Code>" + name + "</Code><Message>refused by the test server</Message></Error>");
        response.content_type = "application/xml";
        return response;
      });
    }
    m_port = m_server.bind("127.0.0.1", 0).value_or(0);
    m_thread = std::thread([this] { (void)m_server.serve(); });
  }
  ~FailingS3() {
    m_server.stop();
    m_thread.join();
  }
  std::unique_ptr<ObjectStore> store() const {
    S3Options with;
    with.location = {"bucket", ""};
    with.endpoint = "http://127.0.0.1:" + std::to_string(m_port);
    with.access_key = "AKIDEXAMPLE";
    with.secret_key = "secret";
    with.retry.base_delay_seconds = 0;
    return std::move(make_s3_store(with).value());
  }
  std::vector<std::string> stored() {
    const std::lock_guard guard(m_mutex);
    return m_stored;
  }

private:
  std::function<int(const std::string&, const std::string&)> m_status;
  platform::HttpServer m_server;
  int m_port = 0;
  std::thread m_thread;
  std::mutex m_mutex;
  std::vector<std::string> m_stored;
};

bool names_a_page(const std::vector<std::string>& paths) {
  return std::any_of(paths.begin(), paths.end(), [](const std::string& path) {
    return path.ends_with("/index.html") || path.ends_with("/index.json");
  });
}

TEST(S3PublishFailures, ServerErrorOnTheSecondWheelChangesNoIndexPage) {
  test::ChannelTempDir dir;
  FailingS3 server([](const std::string& method, const std::string& path) {
    if (method == "HEAD" || method == "GET") return 404;
    return path.find("mini-1.1") != std::string::npos ? 500 : 200;
  });
  PublishOptions with;
  with.channel = Channel::nightly;
  with.files = {test::make_wheel(dir.path() / "in", "mini", "1.0+cpu"),
                test::make_wheel(dir.path() / "in", "mini", "1.1+cpu")};
  auto store = server.store();
  auto result = run_publish(with, *store);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::network);
  EXPECT_NE(result.error().describe().find("HTTP 500 InternalError"), std::string::npos)
      << result.error().describe();
  EXPECT_NE(result.error().describe().find("no index page was changed"), std::string::npos);
  const auto stored = server.stored();
  EXPECT_FALSE(stored.empty());        // the first wheel went up ...
  EXPECT_FALSE(names_a_page(stored));  // ... but no page names it
}

TEST(S3PublishFailures, RejectedSignatureIsAnAuthErrorAndStoresNothing) {
  test::ChannelTempDir dir;
  FailingS3 server([](const std::string&, const std::string&) { return 403; });
  PublishOptions with;
  with.channel = Channel::nightly;
  with.files = {test::make_wheel(dir.path() / "in", "mini", "1.0+cpu")};
  auto store = server.store();
  auto result = run_publish(with, *store);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::auth);
  // The first request is a HEAD, whose answer has no body to name the S3 error code.
  EXPECT_NE(result.error().describe().find("answered HTTP 403"), std::string::npos)
      << result.error().describe();
  EXPECT_NE(result.error().describe().find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
  EXPECT_TRUE(server.stored().empty());
}

}  // namespace
}  // namespace relforge::channels
