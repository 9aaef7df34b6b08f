// Slow, idle and greedy clients against a server with few request threads: waiting for a request
// must cost no thread, and what it costs in connections and bytes is bounded.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "platform/http_server.hpp"
#include "tests/support/raw_client.hpp"
#include "tests/support/splitmix64.hpp"

namespace relforge::platform {
namespace {

using namespace std::chrono_literals;
using test::RawClient;

// `size` bytes that are not all alike.
std::string random_bytes(std::size_t size, std::uint64_t seed) {
  std::string bytes(size, '\0');
  test::SplitMix64 random(seed);
  for (std::size_t i = 0; i < size; i += 8) {
    const std::uint64_t word = random.next();
    std::memcpy(bytes.data() + i, &word, std::min<std::size_t>(8, size - i));
  }
  return bytes;
}

class HttpSlowClientsTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("relforge-http-slow-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(m_dir);
    m_big = m_dir / "big.bin";
    m_server.set_max_body_bytes(1 << 20);
    m_server.route("GET", "/ping", [this](const HttpRequest&) {
      ++m_calls;
      return HttpResponse::text(200, "pong\n");
    });
    m_server.route("POST", "/upload", [this](const HttpRequest& request) {
      ++m_calls;
      return HttpResponse::text(200, "got " + std::to_string(request.body.size()) + "\n");
    });
    m_server.route("GET", "/large", [this](const HttpRequest&) {
      ++m_calls;
      HttpResponse response;
      response.content_type = "application/octet-stream";
      response.body = m_large;  // an answer held in memory (as the relay's pages and API answers)
      return response;
    });
    m_server.route("GET", "/big", [this](const HttpRequest&) {
      ++m_calls;
      HttpResponse response;
      response.content_type = "application/octet-stream";
      response.file = m_big;
      return response;
    });
  }
  void TearDown() override {
    if (m_thread.joinable()) {
      m_server.stop();
      m_thread.join();
    }
    std::filesystem::remove_all(m_dir);
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

  // Four clients ask for `path` and read none of it, against one request thread: a thread writing
  // to them would wait for write_timeout (30 s) each. A ping is still answered at once.
  std::vector<std::unique_ptr<RawClient>> stall_four_readers_then_ping(const std::string& path) {
    std::vector<std::unique_ptr<RawClient>> stalled;
    for (int i = 0; i < 4; ++i) {
      stalled.push_back(std::make_unique<RawClient>(m_port));
      EXPECT_TRUE(stalled.back()->send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"));
    }
    std::this_thread::sleep_for(300ms);
    std::chrono::milliseconds took{};
    EXPECT_NE(ping(&took).find("pong"), std::string::npos);
    EXPECT_LT(took, 2000ms);
    EXPECT_EQ(m_calls.load(), 5);
    return stalled;
  }

  // A file of `size` bytes that are not all alike, served at /big.
  std::string write_big(std::size_t size) {
    std::string bytes = random_bytes(size, 42);
    std::ofstream(m_big, std::ios::binary) << bytes;
    return bytes;
  }

  std::filesystem::path m_dir;
  std::filesystem::path m_big;
  std::string m_large;  // served at /large; set before start()
  HttpServer m_server;
  std::atomic<int> m_calls{0};
  int m_port = 0;
  std::thread m_thread;
};

TEST_F(HttpSlowClientsTest, HeadsSentAByteAtATimeHoldNoThread) {
  HttpLimits limits;
  limits.header_timeout = 20s;
  start(limits, 2);
  // Far more trickling clients than threads, each with a head that is never finished (each from an
  // address of its own, as 64 clients are: one address holds at most 64 waiting connections).
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 64; ++i) {
    slow.push_back(std::make_unique<RawClient>(m_port, ("127.0.1." + std::to_string(i + 1)).c_str()));
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

TEST_F(HttpSlowClientsTest, AClientAtItsConnectionLimitClosesItsOwnLongestWaitingNotAnothers) {
  HttpLimits limits;
  limits.max_connections = 6;
  limits.max_connections_per_client = 3;
  limits.header_timeout = 20s;
  start(limits, 1);
  RawClient other(m_port, "127.0.0.2");  // waiting longest of all
  ASSERT_TRUE(other.connected());
  ASSERT_TRUE(other.send("GET /ping HTTP/1.1\r\n"));
  std::this_thread::sleep_for(20ms);
  std::vector<std::unique_ptr<RawClient>> greedy;
  for (int i = 0; i < 8; ++i) {
    greedy.push_back(std::make_unique<RawClient>(m_port, "127.0.0.1"));
    ASSERT_TRUE(greedy.back()->send("GET /ping HTTP/1.1\r\n"));
    std::this_thread::sleep_for(20ms);  // an order of arrival
  }
  // The other client is served: the greedy one's eight connections pushed out only its own.
  ASSERT_TRUE(other.send("Host: x\r\n\r\n"));
  EXPECT_TRUE(other.read_until("pong\n", 5s).ends_with("pong\n"));
  // Of the greedy client's, its first five were closed unanswered and its last three are served.
  for (int i = 0; i < 8; ++i) {
    greedy[i]->send("Host: x\r\nConnection: close\r\n\r\n");
    const std::string answer = greedy[i]->read_all();
    if (i < 5) {
      EXPECT_EQ(answer, "") << i;
    } else {
      EXPECT_TRUE(answer.ends_with("pong\n")) << i << ": " << answer;
    }
  }
  EXPECT_EQ(m_calls.load(), 4);
}

TEST_F(HttpSlowClientsTest, WithoutAPerClientLimitOneAddressMayHoldEveryConnection) {
  HttpLimits limits;
  limits.max_connections = 6;
  limits.max_connections_per_client = 0;  // behind a proxy: every connection has its address
  limits.header_timeout = 20s;
  start(limits, 1);
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 6; ++i) {
    clients.push_back(std::make_unique<RawClient>(m_port, "127.0.0.1"));
    ASSERT_TRUE(clients.back()->send("GET /ping HTTP/1.1\r\n"));
    std::this_thread::sleep_for(20ms);
  }
  for (auto& client : clients) {
    client->send("Host: x\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(client->read_all().ends_with("pong\n"));
  }
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

// Reads `count` bytes `chunk` at a time with a pause after each: a client on a slow link.
std::string read_slowly(int fd, std::size_t count, std::size_t chunk, std::chrono::milliseconds pause) {
  std::string out;
  std::vector<char> buffer(chunk);
  while (out.size() < count) {
    const ssize_t n = ::recv(fd, buffer.data(), std::min(chunk, count - out.size()), 0);
    if (n <= 0) break;
    out.append(buffer.data(), static_cast<std::size_t>(n));
    std::this_thread::sleep_for(pause);
  }
  return out;
}

// The head of an answer read byte by byte, so the body that follows stays in the socket.
std::string read_head(int fd) {
  std::string head;
  char byte = 0;
  while (!head.ends_with("\r\n\r\n") && ::recv(fd, &byte, 1, 0) == 1) head += byte;
  return head;
}

TEST_F(HttpSlowClientsTest, DownloadsReadSlowlyHoldNoThread) {
  write_big(std::size_t{16} << 20);
  start(HttpLimits{}, 1);
  stall_four_readers_then_ping("/big");
}

TEST_F(HttpSlowClientsTest, AnswersHeldInMemoryReadSlowlyHoldNoThread) {
  m_large = random_bytes(std::size_t{16} << 20, 7);
  start(HttpLimits{}, 1);
  const auto stalled = stall_four_readers_then_ping("/large");
  // Each still gets the whole answer, byte for byte.
  for (auto& client : stalled) {
    const std::string head = read_head(client->fd());
    EXPECT_NE(head.find("Content-Length: " + std::to_string(m_large.size())), std::string::npos) << head;
    EXPECT_TRUE(read_slowly(client->fd(), m_large.size(), 1 << 20, 0ms) == m_large);
  }
}

TEST_F(HttpSlowClientsTest, ASlowReaderGetsTheWholeAnswerThenItsPipelinedRequests) {
  m_large = random_bytes((std::size_t{6} << 20) + 777, 7);
  start(HttpLimits{}, 1);
  RawClient client(m_port);
  ASSERT_TRUE(
      client.send("GET /large HTTP/1.1\r\nHost: x\r\n\r\n"
                  "GET /large HTTP/1.1\r\nHost: x\r\n\r\n"
                  "GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  std::this_thread::sleep_for(200ms);  // the socket fills: the rest waits in the gate
  for (int round = 0; round < 2; ++round) {
    const std::string head = read_head(client.fd());
    EXPECT_TRUE(head.starts_with("HTTP/1.1 200")) << head;
    const std::string body = read_slowly(client.fd(), m_large.size(), 256 * 1024, 10ms);
    ASSERT_EQ(body.size(), m_large.size()) << round;
    EXPECT_TRUE(body == m_large) << round;
  }
  const std::string last = client.read_all();
  EXPECT_TRUE(last.starts_with("HTTP/1.1 200")) << last.substr(0, 200);
  EXPECT_TRUE(last.ends_with("pong\n")) << last.substr(0, 200);
}

TEST_F(HttpSlowClientsTest, TheUnsentBudgetIsGivenBackOnceAnAnswerIsSent) {
  // Room for one 16 MiB answer at a time: the second stalled reader finds it only if the first
  // answer's bytes were given back when it was sent.
  m_large = random_bytes(std::size_t{16} << 20, 7);
  HttpLimits limits;
  limits.max_unsent_bytes = std::size_t{20} << 20;
  start(limits, 1);
  for (int round = 0; round < 2; ++round) {
    RawClient stalled(m_port);
    ASSERT_TRUE(stalled.send("GET /large HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    std::this_thread::sleep_for(200ms);
    std::chrono::milliseconds took{};
    EXPECT_NE(ping(&took).find("pong"), std::string::npos) << round;
    EXPECT_LT(took, 2000ms) << round;
    const std::string answer = stalled.read_all();
    EXPECT_TRUE(answer.ends_with(m_large.substr(m_large.size() - 4096))) << round;
    EXPECT_EQ(answer.size() - answer.find("\r\n\r\n") - 4, m_large.size()) << round;
  }
}

TEST_F(HttpSlowClientsTest, ASlowReaderWhoseAnswerDoesNotFitTheUnsentBudgetIsDropped) {
  // A 16 MiB answer does not fit a 1 MiB budget: its stalled reader is disconnected part-way and
  // the one request thread goes on at once.
  m_large = random_bytes(std::size_t{16} << 20, 7);
  HttpLimits limits;
  limits.max_unsent_bytes = std::size_t{1} << 20;
  start(limits, 1);
  RawClient stalled(m_port);
  ASSERT_TRUE(stalled.send("GET /large HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::this_thread::sleep_for(300ms);
  std::chrono::milliseconds took{};
  EXPECT_NE(ping(&took).find("pong"), std::string::npos);
  EXPECT_LT(took, 1000ms);
  EXPECT_LT(stalled.read_all().size(), m_large.size());
}

TEST_F(HttpSlowClientsTest, ASlowReaderGetsTheWholeFileThenItsPipelinedRequests) {
  const std::string big = write_big((std::size_t{6} << 20) + 12345);
  start(HttpLimits{}, 1);
  RawClient client(m_port);
  ASSERT_TRUE(
      client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n"
                  "GET /big HTTP/1.1\r\nHost: x\r\nRange: bytes=1000-1048575\r\n\r\n"
                  "GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  std::this_thread::sleep_for(200ms);  // the socket fills: the rest waits in the gate
  const std::string head = read_head(client.fd());
  EXPECT_TRUE(head.starts_with("HTTP/1.1 200")) << head;
  EXPECT_NE(head.find("Content-Length: " + std::to_string(big.size())), std::string::npos) << head;
  const std::string body = read_slowly(client.fd(), big.size(), 256 * 1024, 20ms);
  ASSERT_EQ(body.size(), big.size());
  EXPECT_TRUE(body == big);
  const std::string partial_head = read_head(client.fd());
  EXPECT_TRUE(partial_head.starts_with("HTTP/1.1 206")) << partial_head;
  EXPECT_NE(partial_head.find("Content-Range: bytes 1000-1048575/" + std::to_string(big.size())),
            std::string::npos)
      << partial_head;
  const std::string slice = read_slowly(client.fd(), 1048576 - 1000, 64 * 1024, 5ms);
  EXPECT_TRUE(slice == big.substr(1000, 1048576 - 1000));
  const std::string last = client.read_all();
  EXPECT_TRUE(last.starts_with("HTTP/1.1 200")) << last.substr(0, 200);
  EXPECT_TRUE(last.ends_with("pong\n")) << last.substr(0, 200);
}

TEST_F(HttpSlowClientsTest, ADownloadThatStopsBeingReadIsDroppedAfterTheWriteTimeout) {
  const std::string big = write_big(std::size_t{32} << 20);
  HttpLimits limits;
  limits.write_timeout = 300ms;
  start(limits, 1);
  RawClient client(m_port);
  ASSERT_TRUE(client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::this_thread::sleep_for(1500ms);  // reads nothing for five times the write timeout
  const std::string got = client.read_all();
  EXPECT_TRUE(got.starts_with("HTTP/1.1 200"));
  EXPECT_LT(got.size(), big.size());  // cut off, not sent whole
  EXPECT_NE(ping().find("pong"), std::string::npos);
}

TEST_F(HttpSlowClientsTest, AFileThatShrinksWhileSentEndsTheConnection) {
  const std::string big = write_big(std::size_t{16} << 20);
  start(HttpLimits{}, 1);
  RawClient client(m_port);
  ASSERT_TRUE(client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n"));
  const std::string head = read_head(client.fd());
  ASSERT_TRUE(head.starts_with("HTTP/1.1 200")) << head;
  std::string body = read_slowly(client.fd(), 1 << 20, 64 * 1024, 1ms);
  std::filesystem::resize_file(m_big, 2 << 20);
  const auto started = std::chrono::steady_clock::now();
  body += client.read_all();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);  // closed, not left hanging
  EXPECT_LT(body.size(), big.size());
  EXPECT_TRUE(big.starts_with(body));
}

TEST_F(HttpSlowClientsTest, AHeadAnswerSaysTheFilesLengthAndSendsNoBody) {
  const std::string big = write_big(100000);
  start(HttpLimits{}, 1);
  RawClient client(m_port);
  ASSERT_TRUE(
      client.send("HEAD /big HTTP/1.1\r\nHost: x\r\n\r\n"
                  "GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const std::string answers = client.read_all();
  EXPECT_NE(answers.find("Content-Length: 100000\r\n"), std::string::npos) << answers;
  EXPECT_NE(answers.find("Content-Type: application/octet-stream\r\n"), std::string::npos) << answers;
  const auto second = answers.find("HTTP/1.1 200", 1);
  ASSERT_NE(second, std::string::npos) << answers;
  EXPECT_TRUE(answers.substr(0, second).ends_with("\r\n\r\n")) << answers;  // no body between
  EXPECT_TRUE(answers.ends_with("pong\n"));
}

TEST_F(HttpSlowClientsTest, ServingRaisesTheDescriptorLimitForItsConnections) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  if (before.rlim_max < 2 * 512 + 256)
    GTEST_SKIP() << "the hard descriptor limit is below what serving needs";
  rlimit low = before;
  low.rlim_cur = 256;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  start(HttpLimits{}, 1);
  EXPECT_NE(ping().find("pong"), std::string::npos);  // serving has begun
  rlimit during{};
  ::getrlimit(RLIMIT_NOFILE, &during);
  ::setrlimit(RLIMIT_NOFILE, &before);
  EXPECT_GE(during.rlim_cur, rlim_t{2 * 512 + 256});
}

}  // namespace
}  // namespace relforge::platform
