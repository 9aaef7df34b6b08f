// The server under hostile clients, spoken to in raw bytes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <thread>

#include "platform/http_server.hpp"
#include "tests/support/raw_client.hpp"

namespace relforge::platform {
namespace {

using namespace std::chrono_literals;

using test::RawClient;

class HttpLimitsTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("relforge-http-limits-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(m_dir);
    m_server.set_max_body_bytes(1000);
    m_server.route("POST", "/upload", [this](const HttpRequest& request) {
      ++m_calls;
      return HttpResponse::text(200, "got " + std::to_string(request.body.size()) + "\n");
    });
    m_server.route("GET", "/file", [this](const HttpRequest&) {
      HttpResponse response;
      response.content_type = "application/octet-stream";
      response.file = m_dir / "data.bin";
      response.headers.push_back({"ETag", "\"v1\""});
      return response;
    });
    std::ofstream(m_dir / "data.bin", std::ios::binary) << "0123456789";
  }
  void TearDown() override {
    if (m_thread.joinable()) {
      m_server.stop();
      m_thread.join();
    }
    std::filesystem::remove_all(m_dir);
  }
  void start(HttpLimits limits = {}, std::size_t threads = 8) {
    m_server.set_limits(limits);
    m_server.set_threads(threads);
    auto port = m_server.bind("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().describe();
    m_port = *port;
    m_thread = std::thread([this] { (void)m_server.serve(); });
  }
  std::string exchange(const std::string& bytes) {
    RawClient client(m_port);
    EXPECT_TRUE(client.connected());
    client.send(bytes);
    return client.read_all();
  }

  std::filesystem::path m_dir;
  HttpServer m_server;
  std::atomic<int> m_calls{0};
  int m_port = 0;
  std::thread m_thread;
};

std::string chunked(std::size_t total, std::size_t chunk) {
  std::string out;
  for (std::size_t sent = 0; sent < total; sent += chunk) {
    const std::size_t n = std::min(chunk, total - sent);
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", n);
    out += size + std::string(n, 'x') + "\r\n";
  }
  return out + "0\r\n\r\n";
}

TEST_F(HttpLimitsTest, ChunkedBodiesAreCountedAgainstTheLimit) {
  start();
  const std::string head = "POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  const auto fits = exchange(head + chunked(1000, 100) +
                             "GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(fits.starts_with("HTTP/1.1 200")) << fits;
  EXPECT_NE(fits.find("got 1000"), std::string::npos);
  EXPECT_NE(fits.find("HTTP/1.1 404"), std::string::npos) << "keep-alive continues after a chunked body";
  const auto over = exchange(head + chunked(1001, 100));
  EXPECT_TRUE(over.starts_with("HTTP/1.1 413")) << over;
  EXPECT_NE(over.find("Connection: close"), std::string::npos);
  // Far more than the limit, in one huge chunk and in tiny ones: refused, never stored.
  EXPECT_TRUE(exchange(head + chunked(8 << 20, 1 << 20)).starts_with("HTTP/1.1 413"));
  EXPECT_TRUE(exchange(head + "fffffffffffffff\r\n" + std::string(100000, 'x')).starts_with("HTTP/1.1 413"));
  EXPECT_TRUE(exchange(head + chunked(5000, 1)).starts_with("HTTP/1.1 413"));
  EXPECT_EQ(m_calls.load(), 1);
}

TEST_F(HttpLimitsTest, BadChunkedFramingIs400AndCloses) {
  start();
  const std::string head = "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_TRUE(exchange(head + "zz\r\nxx\r\n0\r\n\r\n").starts_with("HTTP/1.1 400"));
  // A chunk-size line that never ends must not grow a buffer without bound.
  EXPECT_TRUE(exchange(head + "1" + std::string(100000, ';')).starts_with("HTTP/1.1 400"));
  EXPECT_EQ(m_calls.load(), 0);
}

// A second request hidden after junk in a chunk ("38zz", data not followed by CRLF) is never run:
// the first is refused with 400 and the connection closed, so nothing after it is read as a request.
TEST_F(HttpLimitsTest, ARequestHiddenInAMalformedChunkedBodyIsNeverRun) {
  start();
  const std::string head = "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string hidden = "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc";
  for (const std::string& body :
       {"3\r\nabcjunk\r\n" + hidden + "\r\n0\r\n\r\n", "3zz\r\nabc\r\n0\r\n\r\n" + hidden,
        "0x3\r\nabc\r\n0\r\n\r\n" + hidden, "-5\r\n" + hidden, "3\nabc\r\n0\r\n\r\n" + hidden}) {
    const auto answer = exchange(head + body);
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << answer;
    EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
    EXPECT_EQ(answer.find("HTTP/1.1 200"), std::string::npos) << answer;
  }
  EXPECT_EQ(m_calls.load(), 0);
}

TEST_F(HttpLimitsTest, LengthOverTheLimitIs413BeforeTheBodyIsSent) {
  start();
  RawClient client(m_port);
  client.send(
      "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000\r\nExpect: "
      "100-continue\r\n\r\n");
  const auto answer = client.read_all();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413")) << answer;
  EXPECT_EQ(answer.find("100 Continue"), std::string::npos);
  EXPECT_EQ(m_calls.load(), 0);
}

TEST_F(HttpLimitsTest, MethodsWithoutARouteAre405WithAllowBeforeAnyBody) {
  start();
  const auto put = exchange("PUT /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000\r\n\r\n");
  EXPECT_TRUE(put.starts_with("HTTP/1.1 405")) << put;
  EXPECT_NE(put.find("Allow: POST\r\n"), std::string::npos);
  const auto post = exchange("POST /file HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n");
  EXPECT_TRUE(post.starts_with("HTTP/1.1 405")) << post;
  EXPECT_NE(post.find("Allow: GET, HEAD\r\n"), std::string::npos);
  for (const std::string method : {"TRACE", "CONNECT", "OPTIONS", "DELETE", "FOO", "PRI"}) {
    const auto answer = exchange(method + " /file HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 405")) << method << ": " << answer;
  }
  const auto head = exchange("HEAD /file HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(head.starts_with("HTTP/1.1 200")) << head;
  EXPECT_NE(head.find("Content-Length: 10\r\n"), std::string::npos);
  EXPECT_EQ(head.find("0123456789"), std::string::npos);
  EXPECT_TRUE(exchange("GET /missing HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                  .starts_with("HTTP/1.1 404"));
}

TEST_F(HttpLimitsTest, OversizedHeadsAreRefused) {
  m_server.route("GET", "/a+",
                 [](const HttpRequest& request) { return HttpResponse::text(200, request.path); });
  start();
  // The longest request line, path and header line taken are served; one byte more is refused.
  const std::string path = "/" + std::string(2047, 'a');
  const std::string query = "?" + std::string(6128, 'q');  // "GET " + 2048 + 6129 + " HTTP/1.1": 8190 + CRLF
  const auto longest =
      exchange("GET " + path + query + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + std::string(8192 - 5, 'v') +
               "\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(longest.starts_with("HTTP/1.1 200")) << longest.substr(0, 200);
  EXPECT_TRUE(longest.ends_with(path));
  EXPECT_TRUE(exchange("GET " + path + "a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").starts_with("HTTP/1.1 414"));
  EXPECT_TRUE(
      exchange("GET " + path + query + "q HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").starts_with("HTTP/1.1 414"));
  EXPECT_TRUE(exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + std::string(8192 - 4, 'v') + "\r\n\r\n")
                  .starts_with("HTTP/1.1 431"));
  EXPECT_TRUE(exchange("GET /" + std::string(10000, 'a') + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                  .starts_with("HTTP/1.1 414"));
  std::string many = "GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 0; i < 1000; ++i) many += "X-Pad-" + std::to_string(i) + ": " + std::string(60, 'p') + "\r\n";
  EXPECT_TRUE(exchange(many + "\r\n").starts_with("HTTP/1.1 431"));
  EXPECT_TRUE(
      exchange(
          "GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n")
          .starts_with("HTTP/1.1 400"));
}

TEST_F(HttpLimitsTest, ByteRanges) {
  start();
  const auto get = [this](const std::string& fields) {
    return exchange("GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + fields + "\r\n");
  };
  const auto middle = get("Range: bytes=2-4\r\n");
  EXPECT_TRUE(middle.starts_with("HTTP/1.1 206")) << middle;
  EXPECT_NE(middle.find("Content-Range: bytes 2-4/10\r\n"), std::string::npos);
  EXPECT_NE(middle.find("Content-Length: 3\r\n"), std::string::npos);
  EXPECT_TRUE(middle.ends_with("\r\n\r\n234"));
  EXPECT_TRUE(get("Range: bytes=-3\r\n").ends_with("\r\n\r\n789"));
  EXPECT_TRUE(get("Range: bytes=7-\r\n").ends_with("\r\n\r\n789"));
  EXPECT_TRUE(get("Range: bytes=7-1000\r\n").ends_with("\r\n\r\n789"));
  for (const std::string range :
       {"bytes=10-", "bytes=1000-2000", "bytes=-0", "bytes=99999999999999999999-"}) {
    const auto past = get("Range: " + range + "\r\n");
    EXPECT_TRUE(past.starts_with("HTTP/1.1 416")) << range << ": " << past;
    EXPECT_NE(past.find("Content-Range: bytes */10\r\n"), std::string::npos);
  }
  for (const std::string range : {"bytes=0-1,4-5", "bytes=abc", "lines=1-2", "bytes=5-1"}) {
    const auto whole = get("Range: " + range + "\r\n");
    EXPECT_TRUE(whole.starts_with("HTTP/1.1 200")) << range << ": " << whole;
    EXPECT_TRUE(whole.ends_with("\r\n\r\n0123456789"));
    EXPECT_NE(whole.find("Accept-Ranges: bytes\r\n"), std::string::npos);
  }
  EXPECT_TRUE(get("Range: bytes=2-4\r\nIf-Range: \"v1\"\r\n").starts_with("HTTP/1.1 206"));
  EXPECT_TRUE(get("Range: bytes=2-4\r\nIf-Range: \"v0\"\r\n").starts_with("HTTP/1.1 200"));
  // Many unsatisfiable ranges on one connection: each is answered, nothing stalls.
  std::string pipelined;
  for (int i = 0; i < 50; ++i)
    pipelined += "GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=100-\r\n\r\n";
  const auto answers =
      exchange(pipelined + "GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  std::size_t count = 0;
  for (std::size_t at = answers.find("HTTP/1.1 416"); at != std::string::npos;
       at = answers.find("HTTP/1.1 416", at + 1))
    ++count;
  EXPECT_EQ(count, 50u);
  EXPECT_TRUE(answers.ends_with("0123456789"));
}

// Answers are gathered and sent at once: a kept-alive client gets its whole answer, head and body,
// before it sends anything more, and one that asks to continue gets the 100 before its body.
TEST_F(HttpLimitsTest, EachAnswerIsSentWholeBeforeTheServerWaitsAgain) {
  start();
  RawClient client(m_port);
  ASSERT_TRUE(client.send("GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  const auto first = client.read_until("0123456789", 5s);
  EXPECT_TRUE(first.starts_with("HTTP/1.1 200")) << first;
  EXPECT_TRUE(first.ends_with("\r\n\r\n0123456789")) << first;
  ASSERT_TRUE(client.send(
      "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
  EXPECT_EQ(client.read_until("\r\n\r\n", 5s), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(client.send("hello"));
  const auto second = client.read_until("got 5\n", 5s);
  EXPECT_TRUE(second.starts_with("HTTP/1.1 200")) << second;
  EXPECT_TRUE(second.ends_with("got 5\n")) << second;
  EXPECT_EQ(m_calls.load(), 1);
}

TEST_F(HttpLimitsTest, SlowClientsAreDroppedAndDoNotStarveOthers) {
  HttpLimits limits;
  limits.header_timeout = 300ms;
  limits.idle_timeout = 300ms;
  start(limits, 1);
  RawClient slow(m_port);
  ASSERT_TRUE(slow.send("GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
  const auto started = std::chrono::steady_clock::now();
  // One byte every 50 ms: each read makes progress, but the head never completes.
  for (int i = 0; i < 100 && !slow.readable() && slow.send("a"); ++i) std::this_thread::sleep_for(50ms);
  const std::string answer = slow.read_all();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 408")) << answer;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  // The only request thread is free again.
  EXPECT_TRUE(exchange("GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                  .starts_with("HTTP/1.1 200"));
  // An idle keep-alive connection is closed after the idle timeout.
  RawClient idle(m_port);
  ASSERT_TRUE(idle.send("GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  const auto kept = idle.read_all();
  EXPECT_TRUE(kept.starts_with("HTTP/1.1 200"));
}

TEST_F(HttpLimitsTest, AnHttp11RequestWithoutExactlyOneWellFormedHostIs400) {
  start();
  for (const std::string head :
       {"GET /file HTTP/1.1\r\n\r\n", "GET /file HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET /file HTTP/1.1\r\nHost: a b\r\n\r\n", "GET /file HTTP/1.1\r\nHost: u@a\r\n\r\n"}) {
    const std::string answer = exchange(head);
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << head;
    EXPECT_NE(answer.find("Connection: close"), std::string::npos) << head;
  }
  EXPECT_TRUE(exchange("GET /file HTTP/1.0\r\n\r\n").starts_with("HTTP/1.1 200"));
  EXPECT_TRUE(exchange("GET /file HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n")
                  .starts_with("HTTP/1.1 200"));
}

TEST_F(HttpLimitsTest, AClientThatStopsReadingIsDropped) {
  std::ofstream(m_dir / "data.bin", std::ios::binary) << std::string(64 << 20, 'z');
  HttpLimits limits;
  limits.write_timeout = 300ms;
  start(limits, 1);
  RawClient stalled(m_port);
  ASSERT_TRUE(
      stalled.send("GET /file HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));  // and never reads the 64 MiB answer
  std::this_thread::sleep_for(100ms);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(exchange("GET /missing HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                  .starts_with("HTTP/1.1 404"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

}  // namespace
}  // namespace relforge::platform
