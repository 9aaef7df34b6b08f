// Slow, idle and greedy clients against a server with few request threads: waiting for a request
// must cost no thread, and what it costs in connections and bytes is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "platform/http_server.hpp"
#include "tests/support/raw_client.hpp"

namespace relforge::platform {
namespace {

using namespace std::chrono_literals;
using test::RawClient;

class HttpSlowClientsTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_server.set_max_body_bytes(1 << 20);
    m_server.route("GET", "/ping", [this](const HttpRequest&) {
      ++m_calls;
      return HttpResponse::text(200, "pong\n");
    });
    m_server.route("POST", "/upload", [this](const HttpRequest& request) {
      ++m_calls;
      return HttpResponse::text(200, "got " + std::to_string(request.body.size()) + "\n");
    });
  }
  void TearDown() override {
    if (m_thread.joinable()) {
      m_server.stop();
      m_thread.join();
    }
  }
  void start(HttpLimits limits, std::size_t threads) {
    m_server.set_limits(limits);
    m_server.set_threads(threads);
    auto port = m_server.bind("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().describe();
    m_port = *port;
    m_thread = std::thread([this] { (void)m_server.serve(); });
  }
  // One request on a fresh connection, and how long its answer took.
  std::string ping(std::chrono::milliseconds* took = nullptr) {
    const auto started = std::chrono::steady_clock::now();
    RawClient client(m_port);
    client.send("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    std::string answer = client.read_all();
    if (took)
      *took =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    return answer;
  }

  HttpServer m_server;
  std::atomic<int> m_calls{0};
  int m_port = 0;
  std::thread m_thread;
};

TEST_F(HttpSlowClientsTest, HeadsSentAByteAtATimeHoldNoThread) {
  HttpLimits limits;
  limits.header_timeout = 20s;
  start(limits, 2);
  // Far more trickling clients than threads, each with a head that is never finished.
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 64; ++i) {
    slow.push_back(std::make_unique<RawClient>(m_port));
    ASSERT_TRUE(slow.back()->send("GET /ping HTTP/1.1\r\nX-Slow: "));
  }
  for (int round = 0; round < 3; ++round) {
    for (auto& client : slow) ASSERT_TRUE(client->send("a"));
    std::chrono::milliseconds took{};
    EXPECT_TRUE(ping(&took).starts_with("HTTP/1.1 200")) << "round " << round;
    EXPECT_LT(took, 1s);
  }
  EXPECT_EQ(m_calls.load(), 3);
}

TEST_F(HttpSlowClientsTest, BodiesSentSlowlyHoldNoThreadAndArriveWhole) {
  HttpLimits limits;
  limits.body_timeout = 20s;
  start(limits, 1);
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 16; ++i) {
    slow.push_back(std::make_unique<RawClient>(m_port));
    ASSERT_TRUE(slow.back()->send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345"));
  }
  std::chrono::milliseconds took{};
  EXPECT_TRUE(ping(&took).starts_with("HTTP/1.1 200"));
  EXPECT_LT(took, 1s);
  EXPECT_EQ(m_calls.load(), 1);  // no handler ran on half a body
  for (auto& client : slow) ASSERT_TRUE(client->send("67890"));
  for (auto& client : slow) EXPECT_TRUE(client->read_until("got 10\n", 5s).ends_with("got 10\n"));
  EXPECT_EQ(m_calls.load(), 17);
}

TEST_F(HttpSlowClientsTest, IdleKeptAliveConnectionsHoldNoThread) {
  HttpLimits limits;
  limits.idle_timeout = 20s;
  start(limits, 1);
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 16; ++i) {
    idle.push_back(std::make_unique<RawClient>(m_port));
    ASSERT_TRUE(idle.back()->send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_TRUE(idle.back()->read_until("pong\n", 5s).ends_with("pong\n"));
  }
  std::chrono::milliseconds took{};
  EXPECT_TRUE(ping(&took).starts_with("HTTP/1.1 200"));
  EXPECT_LT(took, 1s);
  // Each kept connection is still served when it speaks again.
  for (auto& client : idle) {
    ASSERT_TRUE(client->send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"));
    EXPECT_TRUE(client->read_until("pong\n", 5s).ends_with("pong\n"));
  }
}

TEST_F(HttpSlowClientsTest, AtTheConnectionLimitTheLongestWaitingGoes) {
  HttpLimits limits;
  limits.max_connections = 4;
  limits.header_timeout = 20s;
  start(limits, 1);
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 4; ++i) {
    slow.push_back(std::make_unique<RawClient>(m_port));
    ASSERT_TRUE(slow.back()->send("GET /ping HTTP/1.1\r\n"));
    std::this_thread::sleep_for(20ms);  // an order of arrival
  }
  std::chrono::milliseconds took{};
  EXPECT_TRUE(ping(&took).starts_with("HTTP/1.1 200"));
  EXPECT_LT(took, 1s);
  EXPECT_EQ(slow.front()->read_all(), "");  // closed, unanswered: it never finished a request
  // The others were kept and are served when they finish.
  ASSERT_TRUE(slow.back()->send("Host: x\r\n\r\n"));
  EXPECT_TRUE(slow.back()->read_until("pong\n", 5s).ends_with("pong\n"));
}

TEST_F(HttpSlowClientsTest, BytesWaitingBeyondTheBudgetAre503) {
  HttpLimits limits;
  limits.max_gathered_bytes = 64 * 1024;
  limits.body_timeout = 20s;
  start(limits, 1);
  RawClient first(m_port);
  ASSERT_TRUE(first.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" +
                         std::string(40 * 1024, 'a')));
  std::this_thread::sleep_for(100ms);
  RawClient second(m_port);
  second.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" +
              std::string(40 * 1024, 'b'));
  const std::string refused = second.read_all();
  EXPECT_TRUE(refused.starts_with("HTTP/1.1 503")) << refused;
  EXPECT_NE(refused.find("Connection: close"), std::string::npos);
  EXPECT_TRUE(ping().starts_with("HTTP/1.1 200"));
  EXPECT_EQ(m_calls.load(), 1);
}

TEST_F(HttpSlowClientsTest, ABodyThatNeverEndsIs408AfterTheBodyTimeout) {
  HttpLimits limits;
  limits.body_timeout = 300ms;
  start(limits, 1);
  RawClient client(m_port);
  ASSERT_TRUE(client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n123"));
  const auto started = std::chrono::steady_clock::now();
  const std::string answer = client.read_all();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 408")) << answer;
  EXPECT_NE(answer.find("request body not received in time"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_EQ(m_calls.load(), 0);
}

TEST_F(HttpSlowClientsTest, AClientThatClosesItsSideAfterItsRequestIsStillAnswered) {
  start(HttpLimits{}, 1);
  RawClient client(m_port);
  ASSERT_TRUE(
      client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /ping "
                  "HTTP/1.1\r\nHost: x\r\n\r\n"));
  client.finish_sending();
  const std::string answers = client.read_all();
  EXPECT_NE(answers.find("got 3\n"), std::string::npos) << answers;
  EXPECT_NE(answers.find("pong\n"), std::string::npos) << answers;
  RawClient partial(m_port);
  ASSERT_TRUE(partial.send("GET /ping HTTP/1.1\r\nHost: x\r\n"));
  partial.finish_sending();
  EXPECT_EQ(partial.read_all(), "");  // half a request and the end: nothing to answer
  EXPECT_EQ(m_calls.load(), 2);
}

TEST_F(HttpSlowClientsTest, PipelinedRequestsAreAnsweredInOrder) {
  start(HttpLimits{}, 1);
  RawClient client(m_port);
  std::string burst;
  for (int i = 0; i < 5; ++i)
    burst += "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(i) + "\r\n\r\n" +
             std::string(i, 'z');
  burst += "GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_TRUE(client.send(burst));
  const std::string answers = client.read_all();
  std::size_t at = 0;
  for (int i = 0; i < 5; ++i) {
    at = answers.find("got " + std::to_string(i) + "\n", at);
    ASSERT_NE(at, std::string::npos) << answers;
  }
  EXPECT_NE(answers.find("pong\n", at), std::string::npos) << answers;
  EXPECT_EQ(m_calls.load(), 6);
}

}  // namespace
}  // namespace relforge::platform
