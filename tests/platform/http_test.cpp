#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>

#include "platform/http_client.hpp"
#include "platform/http_server.hpp"

namespace relforge::platform {
namespace {

using namespace std::chrono_literals;

class HttpTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("relforge-http-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override {
    stop();
    std::filesystem::remove_all(m_dir);
  }

  void start() {
    auto port = m_server.bind("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().describe();
    m_port = *port;
    m_thread = std::thread([this] { m_serve_status = m_server.serve(); });
  }
  void stop() {
    if (!m_thread.joinable()) return;
    m_server.stop();
    m_thread.join();
    EXPECT_TRUE(m_serve_status) << m_serve_status.error().describe();
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(m_port) + path;
  }
  Result<HttpClientResponse> get(const std::string& path) {
    return http_request({.url = url(path), .timeout = 10s});
  }

  std::filesystem::path m_dir;
  HttpServer m_server;
  int m_port = 0;
  std::thread m_thread;
  Status m_serve_status;
};

TEST_F(HttpTest, RoutesCapturesQueryAndHeaders) {
  m_server.route("GET", "/simple/([^/]+)/(\\d+)", [](const HttpRequest& request) {
    auto response = HttpResponse::text(200, request.matches.at(0) + "|" + request.matches.at(1) + "|" +
                                                request.query_value("q").value_or("-") + "|" +
                                                request.header("x-relforge-test").value_or("-") + "|" +
                                                request.remote_addr);
    response.headers.emplace_back("X-Reply", "Yes");
    return response;
  });
  start();
  auto response = http_request({.url = url("/simple/torch/42?q=a%20b"),
                                .headers = {{"X-Relforge-Test", "Mixed Case"}},
                                .timeout = 10s});
  ASSERT_TRUE(response) << response.error().describe();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "torch|42|a b|Mixed Case|127.0.0.1");
  const auto reply = response->headers.find("x-reply");
  ASSERT_NE(reply, response->headers.end());
  EXPECT_EQ(reply->second, "Yes");
  EXPECT_EQ(response->headers.find("content-type")->second, "text/plain; charset=utf-8");

  // The regex must match the whole path.
  auto partial = get("/simple/torch/42/extra");
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->status, 404);
}

TEST_F(HttpTest, UnknownRouteIs404AndWrongMethodIs405) {
  m_server.route("POST", "/upload", [](const HttpRequest&) { return HttpResponse::text(201, ""); });
  start();
  auto missing = get("/nowhere");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->body, "not found\n");  // the path is never echoed back
  auto wrong = get("/upload");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 405);
  EXPECT_EQ(wrong->headers.find("allow")->second, "POST");
}

TEST_F(HttpTest, BodyIsDeliveredByteExactWithMethodAndJson) {
  m_server.route("PUT", "/blob/(.+)", [](const HttpRequest& request) {
    return HttpResponse::json(200, "{\"name\":\"" + request.matches.at(0) +
                                       "\",\"size\":" + std::to_string(request.body.size()) +
                                       ",\"nul\":" + (request.body.find('\0') == 3 ? "true" : "false") + "}");
  });
  start();
  auto response = http_request(
      {.method = "PUT", .url = url("/blob/x.whl"), .body = std::string("abc\0def", 7), .timeout = 10s});
  ASSERT_TRUE(response) << response.error().describe();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "{\"name\":\"x.whl\",\"size\":7,\"nul\":true}");
  EXPECT_EQ(response->headers.find("content-type")->second, "application/json");
}

TEST_F(HttpTest, OversizedBodyIs413BeforeTheHandler) {
  std::atomic<int> calls{0};
  m_server.set_max_body_bytes(1024);
  m_server.route("POST", "/upload", [&calls](const HttpRequest& request) {
    ++calls;
    return HttpResponse::text(200, std::to_string(request.body.size()));
  });
  start();
  auto small =
      http_request({.method = "POST", .url = url("/upload"), .body = std::string(1024, 'x'), .timeout = 10s});
  ASSERT_TRUE(small) << small.error().describe();
  EXPECT_EQ(small->status, 200);
  EXPECT_EQ(small->body, "1024");
  auto large =
      http_request({.method = "POST", .url = url("/upload"), .body = std::string(4096, 'x'), .timeout = 10s});
  ASSERT_TRUE(large) << large.error().describe();
  EXPECT_EQ(large->status, 413);
  // Far beyond the socket buffers: the client must still see the 413, not a reset connection.
  auto huge = http_request(
      {.method = "POST", .url = url("/upload"), .body = std::string(8 * 1024 * 1024, 'x'), .timeout = 10s});
  ASSERT_TRUE(huge) << huge.error().describe();
  EXPECT_EQ(huge->status, 413);
  EXPECT_EQ(calls.load(), 1);
}

TEST_F(HttpTest, FileResponseIsStreamedByteExact) {
  const auto path = m_dir / "torch-2.5.0-cp312-cp312-linux_x86_64.whl";
  std::string content(5 * 1024 * 1024 + 123, '\0');
  std::mt19937 random(42);
  for (auto& c : content) c = static_cast<char>(random());
  std::ofstream(path, std::ios::binary).write(content.data(), static_cast<std::streamsize>(content.size()));
  m_server.route("GET", "/files/(.+)", [this](const HttpRequest& request) {
    HttpResponse response;
    response.content_type = "application/octet-stream";
    response.file = m_dir / request.matches.at(0);
    return response;
  });
  start();
  auto response = get("/files/" + path.filename().string());
  ASSERT_TRUE(response) << response.error().describe();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->headers.find("content-length")->second, std::to_string(content.size()));
  EXPECT_EQ(response->headers.find("content-type")->second, "application/octet-stream");
  ASSERT_EQ(response->body.size(), content.size());
  EXPECT_TRUE(response->body == content);

  auto head =
      http_request({.method = "HEAD", .url = url("/files/" + path.filename().string()), .timeout = 10s});
  ASSERT_TRUE(head) << head.error().describe();
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->body, "");

  auto missing = get("/files/absent.whl");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST_F(HttpTest, HandlerExceptionIs500WithMessage) {
  m_server.route("GET", "/boom",
                 [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("index is corrupt"); });
  m_server.route("GET", "/ok", [](const HttpRequest&) { return HttpResponse::text(200, "fine"); });
  start();
  auto boom = get("/boom");
  ASSERT_TRUE(boom);
  EXPECT_EQ(boom->status, 500);
  EXPECT_NE(boom->body.find("index is corrupt"), std::string::npos);
  auto ok = get("/ok");  // the server survived
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->body, "fine");
}

TEST_F(HttpTest, ClientTimeoutIsNetworkError) {
  m_server.route("GET", "/slow", [](const HttpRequest&) {
    std::this_thread::sleep_for(600ms);
    return HttpResponse::text(200, "late");
  });
  start();
  auto response = http_request({.url = url("/slow"), .timeout = 100ms});
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().category(), ErrorCategory::network);
  EXPECT_NE(response.error().message().find(url("/slow")), std::string::npos);
  EXPECT_NE(response.error().message().find("imed out"), std::string::npos);
}

TEST_F(HttpTest, RefusedConnectionIsNetworkError) {
  // Reserve a free port and release it without listening: connecting there is refused.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ::close(fd);
  const std::string target = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/x";
  auto response = http_request({.url = target, .timeout = 5s});
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().category(), ErrorCategory::network);
  EXPECT_NE(response.error().message().find(target), std::string::npos);
}

TEST_F(HttpTest, BindToBusyPortFailsAndServeBeforeBindIsRejected) {
  start();
  HttpServer other;
  auto busy = other.bind("127.0.0.1", m_port);
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.error().category(), ErrorCategory::io);
  EXPECT_NE(busy.error().message().find(std::to_string(m_port)), std::string::npos);
  auto unbound = other.serve();
  ASSERT_FALSE(unbound);
  EXPECT_EQ(unbound.error().category(), ErrorCategory::internal);
}

TEST_F(HttpTest, ConcurrentClientsAndRepeatedHeaders) {
  m_server.route("DELETE", "/items/(\\d+)", [](const HttpRequest& request) {
    auto response = HttpResponse::text(200, "deleted " + request.matches.at(0));
    response.headers.emplace_back("Link", "<a>");
    response.headers.emplace_back("Link", "<b>");
    return response;
  });
  start();
  std::vector<std::thread> clients;
  std::vector<std::string> bodies(6);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    clients.emplace_back([this, i, &bodies] {
      auto response =
          http_request({.method = "DELETE", .url = url("/items/" + std::to_string(i)), .timeout = 10s});
      if (response && response->headers.count("link") == 2) bodies[i] = response->body;
    });
  }
  for (auto& client : clients) client.join();
  for (std::size_t i = 0; i < bodies.size(); ++i) EXPECT_EQ(bodies[i], "deleted " + std::to_string(i));
}

TEST_F(HttpTest, StopBeforeServeMakesServeReturn) {
  HttpServer server;
  ASSERT_TRUE(server.bind("127.0.0.1", 0));
  server.stop();
  EXPECT_TRUE(server.serve());
}

}  // namespace
}  // namespace relforge::platform
