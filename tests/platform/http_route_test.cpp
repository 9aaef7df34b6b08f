// Route patterns are RE2 over the decoded path's bytes: whole-path matches, captures (unmatched
// optional groups are empty), any byte under '.', and a bad pattern refused when registered.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "platform/http_client.hpp"
#include "platform/http_server.hpp"

namespace relforge::platform {
namespace {

using namespace std::chrono_literals;

class HttpRouteTest : public ::testing::Test {
protected:
  void TearDown() override {
    if (!m_thread.joinable()) return;
    m_server.stop();
    m_thread.join();
  }
  void start() {
    auto port = m_server.bind("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().describe();
    m_port = *port;
    m_thread = std::thread([this] { (void)m_server.serve(); });
  }
  Result<HttpClientResponse> get(const std::string& path) {
    return http_request({.url = "http://127.0.0.1:" + std::to_string(m_port) + path, .timeout = 10s});
  }

  HttpServer m_server;
  int m_port = 0;
  std::thread m_thread;
};

TEST_F(HttpRouteTest, MatchesWholeDecodedPathsBytewise) {
  m_server.route("GET", "/v2/(.+)/manifests/([^/]+)(/x)?", [](const HttpRequest& request) {
    std::string body;
    for (const auto& group : request.matches) body += "[" + group + "]";
    return HttpResponse::text(200, body);
  });
  start();
  auto nested = get("/v2/org/image/manifests/v1");
  ASSERT_TRUE(nested) << nested.error().describe();
  EXPECT_EQ(nested->status, 200);
  EXPECT_EQ(nested->body, "[org/image][v1][]");
  // %FF decodes to a byte that is not UTF-8; '.' still matches it.
  auto latin1 = get("/v2/caf%E9%FF/manifests/t/x");
  ASSERT_TRUE(latin1) << latin1.error().describe();
  EXPECT_EQ(latin1->status, 200);
  EXPECT_EQ(latin1->body, "[caf\xe9\xff][t][/x]");
  // The pattern must cover the whole path, not a part of it.
  auto prefix_only = get("/v2/a/manifests/b/extra");
  ASSERT_TRUE(prefix_only) << prefix_only.error().describe();
  EXPECT_EQ(prefix_only->status, 404);
  auto long_path = get("/v2/" + std::string(1500, 'a') + "/manifests/t");
  ASSERT_TRUE(long_path) << long_path.error().describe();
  EXPECT_EQ(long_path->status, 200);
}

TEST(HttpRoute, RefusesAPatternRe2CannotCompile) {
  HttpServer server;
  EXPECT_THROW(
      server.route("GET", "/broken/(", [](const HttpRequest&) { return HttpResponse::text(200, ""); }),
      std::invalid_argument);
}

}  // namespace
}  // namespace relforge::platform
