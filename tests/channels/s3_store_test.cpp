// The S3 object store against a real S3 server (s3rver on loopback): conditional put, listing
// across pages, copy, delete, keys with '+', and the errors for bad credentials, a missing
// bucket and an unreachable endpoint. Plus the filesystem store's same contract.
#include "channels/s3_store.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "platform/digest.hpp"
#include "tests/channels/s3_support.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;

fs::path write(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string sha(const std::string& bytes) {
  return platform::to_hex(platform::sha256(bytes));
}

// One s3rver for the suite (Node takes seconds to start); each test has its own key prefix.
class S3StoreTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_dir = new test::ChannelTempDir();
    s_server = new test::S3rver(s_dir->path(), "relforge-test");
  }
  static void TearDownTestSuite() {
    delete s_server;
    delete s_dir;
  }
  void SetUp() override {
    m_prefix = std::string("pfx/") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  std::filesystem::path object_file(const std::string& key) const {
    return s_server->object_file(m_prefix + "/" + key);
  }
  // The bytes s3rver keeps for `key`. It answers a PUT before its file stream has written them
  // (its putObject resolves on the transform's finish), so wait a moment for `expected`.
  std::string stored_bytes(const std::string& key, const std::string& expected) const {
    std::string bytes = test::slurp(object_file(key));
    for (int i = 0; i < 100 && bytes != expected; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      bytes = test::slurp(object_file(key));
    }
    return bytes;
  }
  S3Options options() const {
    S3Options out;
    out.location = {"relforge-test", m_prefix};
    out.endpoint = s_server->endpoint();
    out.access_key = test::k_s3rver_key;
    out.secret_key = test::k_s3rver_secret;
    out.timeout = std::chrono::seconds(20);
    return out;
  }
  std::unique_ptr<ObjectStore> store(const S3Options& with) {
    auto made = make_s3_store(with);
    EXPECT_TRUE(made) << made.error().describe();
    return made ? std::move(*made) : nullptr;
  }
  static inline test::ChannelTempDir* s_dir = nullptr;
  static inline test::S3rver* s_server = nullptr;
  test::ChannelTempDir m_dir;
  std::string m_prefix;
};

TEST_F(S3StoreTest, ConditionalPutCreatesThenAcceptsSameBytesAndRefusesOthers) {
  ASSERT_GT(s_server->port(), 0);
  auto s3 = store(options());
  const std::string key = "whl/nightly/cpu/mini/mini-1.0+cpu-py3-none-any.whl";
  const auto first = write(m_dir.path() / "a/one.whl", "first bytes");
  auto created = s3->put_if_absent(key, first, sha("first bytes"), "application/octet-stream");
  ASSERT_TRUE(created) << created.error().describe();
  EXPECT_EQ(*created, PutResult::created);
  // The object is where s3rver keeps it, byte for byte, '+' and all.
  EXPECT_EQ(stored_bytes(key, "first bytes"), "first bytes");

  auto again = s3->put_if_absent(key, first, sha("first bytes"), "application/octet-stream");
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(*again, PutResult::identical);

  const auto other = write(m_dir.path() / "b/one.whl", "other bytes");
  auto refused = s3->put_if_absent(key, other, sha("other bytes"), "application/octet-stream");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("immutable"), std::string::npos) << refused.error().describe();
  EXPECT_NE(refused.error().message().find("s3://relforge-test/" + m_prefix + "/" + key), std::string::npos);
  EXPECT_EQ(stored_bytes(key, "first bytes"), "first bytes");

  auto info = s3->head(key);
  ASSERT_TRUE(info && info->has_value());
  EXPECT_EQ((*info)->size, 11U);
  EXPECT_EQ((*info)->sha256, sha("first bytes"));
}

TEST_F(S3StoreTest, ObjectWithoutShaMetadataIsComparedByItsBytes) {
  ASSERT_GT(s_server->port(), 0);
  auto s3 = store(options());
  ASSERT_TRUE(s3->put("k/plain.whl", "plain", "application/octet-stream"));
  const auto same = write(m_dir.path() / "same.whl", "plain");
  auto identical = s3->put_if_absent("k/plain.whl", same, sha("plain"), "application/octet-stream");
  ASSERT_TRUE(identical) << identical.error().describe();
  EXPECT_EQ(*identical, PutResult::identical);
  const auto other = write(m_dir.path() / "other.whl", "plain!");
  auto refused = s3->put_if_absent("k/plain.whl", other, sha("plain!"), "application/octet-stream");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
}

TEST_F(S3StoreTest, PutGetDownloadHeadAndRemove) {
  ASSERT_GT(s_server->port(), 0);
  auto s3 = store(options());
  ASSERT_TRUE(s3->put("whl/index.html", "<html>v1</html>", "text/html"));
  ASSERT_TRUE(s3->put("whl/index.html", "<html>v2</html>", "text/html"));
  auto page = s3->get("whl/index.html");
  ASSERT_TRUE(page && page->has_value());
  EXPECT_EQ(**page, "<html>v2</html>");
  ASSERT_TRUE(s3->download("whl/index.html", m_dir.path() / "page.html", 1 << 20));
  EXPECT_EQ(test::slurp(m_dir.path() / "page.html"), "<html>v2</html>");
  auto missing = s3->get("whl/none.html");
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->has_value());
  auto failed = s3->download("whl/none.html", m_dir.path() / "none.html", 1 << 20);
  ASSERT_FALSE(failed);
  EXPECT_FALSE(fs::exists(m_dir.path() / "none.html"));
  ASSERT_TRUE(s3->remove("whl/index.html"));
  auto gone = s3->head("whl/index.html");
  ASSERT_TRUE(gone);
  EXPECT_FALSE(gone->has_value());
  EXPECT_TRUE(s3->remove("whl/index.html"));  // absent is fine
}

TEST_F(S3StoreTest, ListFollowsContinuationTokensAndStripsThePrefix) {
  ASSERT_GT(s_server->port(), 0);
  auto with = options();
  with.list_page_size = 2;
  auto s3 = store(with);
  for (const char* key : {"a/3.txt", "a/1+x.txt", "a/sub/2.txt", "a/0.txt", "a/4.txt", "b/5.txt"}) {
    ASSERT_TRUE(s3->put(key, key, "text/plain"));
  }
  auto under_a = s3->list("a/");
  ASSERT_TRUE(under_a) << under_a.error().describe();
  std::vector<std::string> keys;
  for (const auto& info : *under_a) keys.push_back(info.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a/0.txt", "a/1+x.txt", "a/3.txt", "a/4.txt", "a/sub/2.txt"}));
  EXPECT_EQ(under_a->at(1).size, 9U);
  auto all = s3->list("");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 6U);
}

TEST_F(S3StoreTest, ChildrenIsOneDelimitedLevelAndAgreesWithTheDerivedListing) {
  ASSERT_GT(s_server->port(), 0);
  // One page, and an object directly in each folder (as a channel's variants and projects have):
  // s3rver counts only objects against max-keys, resumes a delimited listing after the last object,
  // and reports a folder only from an object right inside it; AWS has none of these limits.
  auto s3 = store(options());
  for (const char* key :
       {"w/cpu/.relforge-variant", "w/cpu/mini/a.whl", "w/cpu/mini/b.whl", "w/cu126/c.txt",
        "w/cu126/mini/c.whl", "w/cu130/d.txt", "w/index.html", "w/index.json", "w2/e.whl"}) {
    ASSERT_TRUE(s3->put(key, "x", "text/plain"));
  }
  const std::vector<std::string> top = {"cpu/", "cu126/", "cu130/", "index.html", "index.json"};
  auto children = s3->children("w/");
  ASSERT_TRUE(children) << children.error().describe();
  EXPECT_EQ(*children, top);
  EXPECT_EQ(s3->ObjectStore::children("w/").value(), top);
  const std::vector<std::string> cpu = {".relforge-variant", "mini/"};
  EXPECT_EQ(s3->children("w/cpu/").value(), cpu);
  EXPECT_EQ(s3->ObjectStore::children("w/cpu/").value(), cpu);
  EXPECT_TRUE(s3->children("nothing/").value().empty());
}

TEST_F(S3StoreTest, GetManyHandsOverEveryKeyAndAbsentOnesAsNothing) {
  ASSERT_GT(s_server->port(), 0);
  auto s3 = store(options());
  ASSERT_TRUE(s3->put("m/a.json", "A", "text/plain"));
  ASSERT_TRUE(s3->put("m/b/c.json", "C", "text/plain"));
  const std::vector<std::string> keys = {"m/a.json", "m/gone.json", "m/b/c.json"};
  std::vector<std::optional<std::string>> got(keys.size(), std::string("unset"));
  ASSERT_TRUE(s3->get_many(keys, [&](std::size_t i, std::optional<std::string> bytes) -> Status {
    got[i] = std::move(bytes);
    return {};
  }));
  EXPECT_EQ(got, (std::vector<std::optional<std::string>>{"A", std::nullopt, "C"}));
}

TEST_F(S3StoreTest, CopyKeepsBytesAndTheShaMetadata) {
  ASSERT_GT(s_server->port(), 0);
  auto s3 = store(options());
  const auto file = write(m_dir.path() / "w.whl", "wheel bytes");
  ASSERT_TRUE(
      s3->put_if_absent("whl/test/cpu/mini/w.whl", file, sha("wheel bytes"), "application/octet-stream"));
  auto copied = s3->copy("whl/test/cpu/mini/w.whl", "whl/cpu/mini/w.whl");
  ASSERT_TRUE(copied) << copied.error().describe();
  auto info = s3->head("whl/cpu/mini/w.whl");
  ASSERT_TRUE(info && info->has_value());
  EXPECT_EQ((*info)->sha256, sha("wheel bytes"));
  EXPECT_EQ(stored_bytes("whl/cpu/mini/w.whl", "wheel bytes"), "wheel bytes");
  auto missing = s3->copy("whl/none.whl", "whl/x.whl");
  ASSERT_FALSE(missing);
}

TEST_F(S3StoreTest, UnknownAccessKeyIsAnAuthError) {
  ASSERT_GT(s_server->port(), 0);
  auto with = options();
  with.access_key = "AKIANOTKNOWN";
  auto s3 = store(with);
  auto result = s3->put("whl/index.html", "x", "text/html");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::auth);
  EXPECT_NE(result.error().message().find("InvalidAccessKeyId"), std::string::npos)
      << result.error().describe();
  EXPECT_NE(result.error().message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
}

TEST_F(S3StoreTest, MissingBucketIsNotFound) {
  ASSERT_GT(s_server->port(), 0);
  auto with = options();
  with.location.bucket = "no-such-bucket";
  auto s3 = store(with);
  auto result = s3->put("whl/index.html", "x", "text/html");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::not_found);
  EXPECT_NE(result.error().message().find("NoSuchBucket"), std::string::npos) << result.error().describe();
}

TEST(S3StoreOffline, UnreachableEndpointIsANetworkError) {
  S3Options with;
  with.location = {"bucket", ""};
  with.endpoint = "http://127.0.0.1:1";
  with.access_key = "k";
  with.secret_key = "s";
  auto s3 = make_s3_store(with);
  ASSERT_TRUE(s3);
  auto result = (*s3)->list("whl/");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::network);
  EXPECT_NE(result.error().describe().find("s3://bucket/whl/"), std::string::npos)
      << result.error().describe();
}

TEST(S3StoreOffline, OptionsAreCheckedBeforeAnyRequest) {
  S3Options with;
  with.location = {"bucket", ""};
  auto no_credentials = make_s3_store(with);
  ASSERT_FALSE(no_credentials);
  EXPECT_EQ(no_credentials.error().category(), ErrorCategory::auth);
  EXPECT_NE(no_credentials.error().message().find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
  with.access_key = "k";
  with.secret_key = "s";
  with.endpoint = "ftp://example";
  EXPECT_FALSE(make_s3_store(with));
}

TEST(S3StoreOffline, ParsesS3Urls) {
  auto plain = parse_s3_url("s3://my-bucket");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->bucket, "my-bucket");
  EXPECT_EQ(plain->prefix, "");
  auto nested = parse_s3_url("s3://my.bucket/a/b/");
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->bucket, "my.bucket");
  EXPECT_EQ(nested->prefix, "a/b");
  EXPECT_FALSE(parse_s3_url("s3://Upper/x"));
  EXPECT_FALSE(parse_s3_url("s3://ab"));
  EXPECT_FALSE(parse_s3_url("s3://bucket//x"));
  EXPECT_FALSE(parse_s3_url("/srv/channels"));
  EXPECT_TRUE(is_s3_url("s3://b"));
  EXPECT_FALSE(is_s3_url("channels"));
}

TEST(FilesystemObjectStoreTest, KeepsTheSameContract) {
  test::ChannelTempDir dir;
  FilesystemObjectStore store(dir.path() / "root");
  const auto file = write(dir.path() / "in/w.whl", "wheel");
  auto created = store.put_if_absent("whl/cpu/mini/w+1.whl", file, sha("wheel"), "");
  ASSERT_TRUE(created) << created.error().describe();
  EXPECT_EQ(*created, PutResult::created);
  EXPECT_EQ(*store.put_if_absent("whl/cpu/mini/w+1.whl", file, sha("wheel"), ""), PutResult::identical);
  const auto other = write(dir.path() / "in/x.whl", "other");
  auto refused = store.put_if_absent("whl/cpu/mini/w+1.whl", other, sha("other"), "");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  ASSERT_TRUE(store.put("whl/cpu/index.html", "page", ""));
  ASSERT_TRUE(store.copy("whl/cpu/mini/w+1.whl", "whl/test/cpu/mini/w+1.whl"));
  auto listed = store.list("whl/cpu/");
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 2U);
  EXPECT_EQ(listed->at(0).key, "whl/cpu/index.html");
  EXPECT_EQ(listed->at(1).key, "whl/cpu/mini/w+1.whl");
  EXPECT_EQ(**store.get("whl/test/cpu/mini/w+1.whl"), "wheel");
  ASSERT_TRUE(store.remove("whl/test/cpu/mini/w+1.whl"));
  EXPECT_FALSE(store.get("whl/test/cpu/mini/w+1.whl")->has_value());
  EXPECT_FALSE(store.get("../escape"));
}

}  // namespace
}  // namespace relforge::channels
