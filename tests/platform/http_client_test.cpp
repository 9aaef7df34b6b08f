// The client's streaming bodies, response files and AWS SigV4 signing (libcurl's), the signing
// checked against the signatures AWS publishes for its S3 examples.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include "platform/digest.hpp"
#include "platform/http_client.hpp"
#include "platform/http_server.hpp"

namespace relforge::platform {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// AWS's example credentials and request time (S3 API reference, "Signature Calculations for the
// Authorization Header: Transferring Payload in a Single Chunk").
constexpr const char* k_access_key = "AKIAIOSFODNN7EXAMPLE";
constexpr const char* k_secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr const char* k_host = "examplebucket.s3.amazonaws.com";
constexpr const char* k_date = "20130524T000000Z";
constexpr const char* k_empty_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An independent SigV4 (from the specification, not libcurl) for requests AWS has no example of.
std::string reference_signature(const std::string& canonical_request) {
  const std::string day = std::string(k_date).substr(0, 8);
  auto mac = [](const std::string& key, const std::string& message) {
    const auto digest = hmac_sha256(key, message);
    return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
  };
  const std::string key =
      mac(mac(mac(mac(std::string("AWS4") + k_secret_key, day), "us-east-1"), "s3"), "aws4_request");
  const std::string to_sign = std::string("AWS4-HMAC-SHA256\n") + k_date + "\n" + day +
                              "/us-east-1/s3/aws4_request\n" + to_hex(sha256(canonical_request));
  const auto signature = hmac_sha256(key, to_sign);
  return to_hex(signature);
}

class HttpClientTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-http-client-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    m_server.set_max_body_bytes(std::size_t{16} << 20U);
    for (const char* method : {"GET", "PUT", "HEAD", "DELETE"}) {
      m_server.route(method, "/.*", [this](const HttpRequest& request) {
        const std::lock_guard guard(m_mutex);
        m_last = request;
        if (request.path == "/missing") return HttpResponse::text(404, "no such key");
        if (request.path == "/big") return HttpResponse::text(200, std::string(300000, 'b'));
        if (request.path == "/empty") return HttpResponse::text(200, "");
        if (request.path == "/moved") {
          auto moved = HttpResponse::text(307, "");
          moved.headers.emplace_back("Location", "/big");
          return moved;
        }
        auto response = HttpResponse::text(200, request.method + " " + request.path);
        response.headers.emplace_back("ETag", "\"abc\"");
        return response;
      });
    }
    auto port = m_server.bind("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().describe();
    m_port = *port;
    m_thread = std::thread([this] { (void)m_server.serve(); });
  }
  void TearDown() override {
    m_server.stop();
    m_thread.join();
    fs::remove_all(m_dir);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(m_port) + path;
  }
  HttpRequest last() {
    const std::lock_guard guard(m_mutex);
    return m_last;
  }
  // Sends a request signed with AWS's example key at AWS's example time, returns the signature.
  std::string signed_authorization(HttpClientRequest request) {
    request.aws_sigv4 = "aws:amz:us-east-1:s3";
    request.user = k_access_key;
    request.password = k_secret_key;
    request.headers.insert(request.headers.begin(), {"Host", k_host});
    request.headers.emplace_back("X-Amz-Date", k_date);
    request.timeout = 10s;
    auto response = http_request(request);
    EXPECT_TRUE(response) << response.error().describe();
    return last().header("authorization").value_or("");
  }

  fs::path m_dir;
  HttpServer m_server;
  int m_port = 0;
  std::thread m_thread;
  std::mutex m_mutex;
  HttpRequest m_last;
};

TEST_F(HttpClientTest, PutStreamsTheBodyFromAFileAndReturnsResponseHeaders) {
  const fs::path file = m_dir / "wheel.whl";
  std::string bytes(200000, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 % 251);
  std::ofstream(file, std::ios::binary) << bytes;
  auto response = http_request({.method = "PUT",
                                .url = url("/bucket/wheel.whl"),
                                .headers = {{"x-amz-meta-sha256", "feed"}},
                                .timeout = 10s,
                                .body_file = file});
  ASSERT_TRUE(response) << response.error().describe();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("etag").value_or(""), "\"abc\"");
  EXPECT_FALSE(response->header("x-not-sent").has_value());
  const auto request = last();
  EXPECT_EQ(request.method, "PUT");
  EXPECT_TRUE(request.body == bytes) << request.body.size() << " bytes received";
  EXPECT_EQ(request.header("x-amz-meta-sha256").value_or(""), "feed");
  EXPECT_EQ(request.header("content-type").value_or(""), "application/octet-stream");
}

TEST_F(HttpClientTest, MissingBodyFileIsAnIoErrorAndSendsNothing) {
  auto response = http_request(
      {.method = "PUT", .url = url("/bucket/x"), .timeout = 10s, .body_file = m_dir / "absent.whl"});
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().category(), ErrorCategory::io);
  EXPECT_NE(response.error().message().find("absent.whl"), std::string::npos);
  EXPECT_TRUE(last().method.empty());
}

TEST_F(HttpClientTest, SuccessfulBodyGoesToTheResponseFileAndErrorsStayInMemory) {
  const fs::path target = m_dir / "out.bin";
  auto big = http_request({.url = url("/big"), .timeout = 10s, .response_file = target});
  ASSERT_TRUE(big) << big.error().describe();
  EXPECT_EQ(big->status, 200);
  EXPECT_TRUE(big->body.empty());
  EXPECT_EQ(slurp(target), std::string(300000, 'b'));

  const fs::path other = m_dir / "missing.bin";
  auto missing = http_request({.url = url("/missing"), .timeout = 10s, .response_file = other});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->body, "no such key");
  EXPECT_FALSE(fs::exists(other));
  // No temp file is left behind either.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(m_dir)) ++entries;
  EXPECT_EQ(entries, 1U);
}

TEST_F(HttpClientTest, ALinkPlantedWhereTheDownloadWritesIsNeverWrittenThrough) {
  // The temp name used to be ".NAME.download" beside the target: anyone able to write to the folder
  // (a shared /tmp) could plant a link there and have the download written into its target.
  const fs::path victim = m_dir / "victim.txt";
  std::ofstream(victim) << "precious";
  const fs::path target = m_dir / "out.bin";
  fs::create_symlink(victim, m_dir / ".out.bin.download");
  for (const char* path : {"/big", "/empty"}) {
    auto response = http_request({.url = url(path), .timeout = 10s, .response_file = target});
    ASSERT_TRUE(response) << response.error().describe();
    EXPECT_EQ(slurp(victim), "precious");
    EXPECT_FALSE(fs::is_symlink(target));
  }
  EXPECT_TRUE(fs::is_symlink(m_dir / ".out.bin.download"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(m_dir)) ++entries;
  EXPECT_EQ(entries, 3U);  // the victim, the planted link, the download: no temp file left
}

TEST_F(HttpClientTest, ADownloadIntoAFolderThatCannotTakeItSaysWhyAndWhere) {
  const fs::path target = m_dir / "no-such-folder" / "out.bin";
  auto response = http_request({.url = url("/big"), .timeout = 10s, .response_file = target});
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().category(), ErrorCategory::io);
  EXPECT_NE(response.error().message().find("no-such-folder"), std::string::npos)
      << response.error().describe();
  EXPECT_NE(response.error().message().find("No such file or directory"), std::string::npos)
      << response.error().describe();
}

TEST_F(HttpClientTest, BodiesOverTheLimitAreRefusedAndLeaveNoFile) {
  const fs::path target = m_dir / "out.bin";
  for (const auto& file : {std::optional<fs::path>(), std::optional<fs::path>(target)}) {
    auto big =
        http_request({.url = url("/big"), .timeout = 10s, .response_file = file, .max_body_bytes = 1000});
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().category(), ErrorCategory::network);
    EXPECT_NE(big.error().message().find("answered more than 1000 bytes"), std::string::npos)
        << big.error().describe();
  }
  auto error_body = http_request({.url = url("/missing"), .timeout = 10s, .max_body_bytes = 5});
  ASSERT_FALSE(error_body);
  auto exact = http_request({.url = url("/big"), .timeout = 10s, .max_body_bytes = 300000});
  ASSERT_TRUE(exact) << exact.error().describe();
  EXPECT_EQ(exact->body.size(), 300000U);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(m_dir)) ++entries;
  EXPECT_EQ(entries, 0U);
}

TEST_F(HttpClientTest, ARedirectIsAnAnswerAndIsNotFollowed) {
  auto moved = http_request({.url = url("/moved"),
                             .timeout = 10s,
                             .aws_sigv4 = "aws:amz:us-east-1:s3",
                             .user = k_access_key,
                             .password = k_secret_key});
  ASSERT_TRUE(moved) << moved.error().describe();
  EXPECT_EQ(moved->status, 307);
  EXPECT_EQ(moved->header("location").value_or(""), "/big");
  EXPECT_EQ(last().path, "/moved");
}

TEST_F(HttpClientTest, HeadAndDeleteAreSentAsSuch) {
  auto head = http_request({.method = "HEAD", .url = url("/bucket/k"), .timeout = 10s});
  ASSERT_TRUE(head);
  EXPECT_EQ(last().method, "HEAD");
  EXPECT_TRUE(head->body.empty());
  EXPECT_EQ(head->header("etag").value_or(""), "\"abc\"");
  auto removed = http_request({.method = "DELETE", .url = url("/bucket/k"), .timeout = 10s});
  ASSERT_TRUE(removed);
  EXPECT_EQ(last().method, "DELETE");
  EXPECT_EQ(removed->body, "DELETE /bucket/k");
}

TEST_F(HttpClientTest, SigV4MatchesAwsGetObjectExample) {
  const std::string authorization =
      signed_authorization({.url = url("/test.txt"),
                            .headers = {{"Range", "bytes=0-9"}, {"x-amz-content-sha256", k_empty_sha256}}});
  EXPECT_EQ(authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST_F(HttpClientTest, SigV4MatchesAwsListObjectsAndLifecycleExamples) {
  const std::string list = signed_authorization(
      {.url = url("/?max-keys=2&prefix=J"), .headers = {{"x-amz-content-sha256", k_empty_sha256}}});
  EXPECT_TRUE(list.ends_with("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"))
      << list;
  // AWS's canonical query for a value-less parameter is "lifecycle="; libcurl 7.88 signs the query
  // exactly as written, so the URL spells it that way.
  const std::string lifecycle = signed_authorization(
      {.url = url("/?lifecycle="), .headers = {{"x-amz-content-sha256", k_empty_sha256}}});
  EXPECT_TRUE(
      lifecycle.ends_with("Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"))
      << lifecycle;
}

TEST_F(HttpClientTest, SigV4OfAStreamedPutMatchesTheReferenceSigning) {
  // The reference implementation reproduces AWS's GET Object example first, so it can be trusted.
  ASSERT_EQ(reference_signature(std::string("GET\n/test.txt\n\nhost:") + k_host + "\nrange:bytes=0-9\n" +
                                "x-amz-content-sha256:" + k_empty_sha256 + "\nx-amz-date:" + k_date +
                                "\n\nhost;range;x-amz-content-sha256;x-amz-date\n" + k_empty_sha256),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  // AWS's PUT example signs no Content-Type, which libcurl always signs on an upload, so the
  // upload is checked against the reference signing of the same request instead.
  const fs::path file = m_dir / "welcome.txt";
  std::ofstream(file, std::ios::binary) << "Welcome to Amazon S3.";
  const std::string payload = to_hex(sha256("Welcome to Amazon S3."));
  ASSERT_EQ(payload, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  const std::string authorization =
      signed_authorization({.method = "PUT",
                            .url = url("/test%24file.text"),
                            .headers = {{"Content-Type", "text/plain"},
                                        {"x-amz-content-sha256", payload},
                                        {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
                            .body_file = file});
  const std::string canonical = std::string("PUT\n/test%24file.text\n\ncontent-type:text/plain\nhost:") +
                                k_host + "\nx-amz-content-sha256:" + payload + "\nx-amz-date:" + k_date +
                                "\nx-amz-storage-class:REDUCED_REDUNDANCY\n\n"
                                "content-type;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n" +
                                payload;
  EXPECT_EQ(authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
            "Signature=" +
                reference_signature(canonical));
  EXPECT_EQ(last().body, "Welcome to Amazon S3.");
}

}  // namespace
}  // namespace relforge::platform
