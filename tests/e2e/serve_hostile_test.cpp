// End-to-end, as an attacker: the real `relforge serve` and `relforge relay serve` on loopback,
// driven with curl (--path-as-is, -r, -X) and raw sockets (exact bytes). A private key sits
// beside the served root; its bytes must never come back.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>
#include <thread>
#include <vector>

#include "core/text.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/raw_client.hpp"
#include "tests/support/run.hpp"

namespace {

namespace fs = std::filesystem;
using relforge::test::RawClient;
using relforge::test::run_shell;
using relforge::test::shell_quote;
using relforge::test::slurp;
using namespace std::chrono_literals;

constexpr const char* k_secret_bytes = "-----BEGIN PRIVATE KEY----- e2e-4f1c-SECRET";

std::string raw_exchange(int port, const std::string& bytes, bool half_close = false) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{15, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (half_close) ::shutdown(fd, SHUT_WR);
    char buffer[65536];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
      out.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

// A background process started through the shell; killed when the test ends.
class Background {
public:
  Background() = default;
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  ~Background() { stop(); }
  void start(const std::string& command, const fs::path& log) {
    m_pid = std::stoi(run_shell(command + " >" + shell_quote(log.string()) + " 2>&1 & echo $!").out);
  }
  void stop() {
    if (m_pid <= 0) return;
    ::kill(m_pid, SIGKILL);
    run_shell("while kill -0 " + std::to_string(m_pid) + " 2>/dev/null; do sleep 0.05; done");
    m_pid = -1;
  }
  int pid() const { return m_pid; }

private:
  int m_pid = -1;
};

struct CurlAnswer {
  int status = -1;
  std::string headers;
  std::string body;
};

class ServeHostile : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-serve-hostile-" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
    const fs::path project = root() / "whl" / "nightly" / "cpu" / "mini";
    fs::create_directories(project);
    fs::create_directories(m_dir / "private");
    fs::create_directories(root() / ".hidden");
    std::ofstream(m_dir / "private" / "secret.key") << k_secret_bytes;
    std::ofstream(root() / ".hidden" / "secret.key") << k_secret_bytes;
    std::ofstream(root() / ".relforge.lock") << k_secret_bytes;
    std::ofstream(project / "index.html") << "<html>mini</html>";
    std::ofstream(project / "index.json") << "{\"name\": \"mini\"}";
    m_wheel.resize(100000);
    for (std::size_t i = 0; i < m_wheel.size(); ++i) m_wheel[i] = static_cast<char>('a' + i % 26);
    std::ofstream(project / "mini-1.0-py3-none-any.whl", std::ios::binary) << m_wheel;
    fs::create_symlink(m_dir / "private" / "secret.key", root() / "escape.whl");
    fs::create_symlink("../../../../private/secret.key", project / "relative-escape.whl");
    fs::create_directory_symlink(m_dir / "private", root() / "outdir");
    fs::create_symlink("/etc/passwd", root() / "passwd");
    m_server.start(shell_quote(relforge::test::relforge_binary()) +
                       " serve --json --port 0 --threads 2 --header-timeout 1 " + "--idle-timeout 1 --root " +
                       shell_quote(root().string()),
                   m_dir / "serve.log");
    for (int i = 0; i < 400 && m_port == 0; ++i) {
      const std::string log = slurp(m_dir / "serve.log");
      const auto at = log.find("\"port\":");
      if (at != std::string::npos)
        m_port = std::stoi(log.substr(at + 7));
      else
        std::this_thread::sleep_for(25ms);
    }
    ASSERT_GT(m_port, 0) << slurp(m_dir / "serve.log");
  }
  void TearDown() override {
    m_server.stop();
    fs::remove_all(m_dir);
  }
  fs::path root() const { return m_dir / "store"; }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(m_port); }

  CurlAnswer curl(const std::string& path, const std::string& options = "") {
    const auto headers = m_dir / "headers", body = m_dir / "body";
    const auto result = run_shell("curl -s --path-as-is -o " + shell_quote(body.string()) + " -D " +
                                  shell_quote(headers.string()) + " -w '%{http_code}' " + options + " " +
                                  shell_quote(base() + path));
    CurlAnswer answer;
    answer.status = result.out.empty() ? -1 : std::stoi(result.out);
    answer.headers = slurp(headers);
    answer.body = slurp(body);
    EXPECT_EQ(answer.body.find("e2e-4f1c-SECRET"), std::string::npos) << path;
    EXPECT_EQ(answer.body.find("root:x:0:0"), std::string::npos) << path;
    return answer;
  }
  std::string raw(const std::string& bytes) {
    const std::string answer = raw_exchange(m_port, bytes);
    EXPECT_EQ(answer.find("e2e-4f1c-SECRET"), std::string::npos) << bytes.substr(0, 200);
    EXPECT_EQ(answer.find("root:x:0:0"), std::string::npos) << bytes.substr(0, 200);
    return answer;
  }

  fs::path m_dir;
  Background m_server;
  int m_port = 0;
  std::string m_wheel;
};

TEST_F(ServeHostile, TraversalInEveryEncodingIsRefusedOverCurl) {
  for (const std::string& path :
       std::vector<std::string>{"/../private/secret.key", "/whl/../../private/secret.key", "//etc/passwd",
                                "//" + m_dir.string() + "/private/secret.key", "/%2e%2e/private/secret.key",
                                "/%2E%2e/private/secret.key", "/whl/%2e%2e/%2e%2e/private/secret.key",
                                "/..%2fprivate%2fsecret.key", "/%2e%2e%2fprivate%2fsecret.key",
                                "/whl%2f..%2f..%2fprivate/secret.key", "/..%5cprivate%5csecret.key",
                                "/%c0%ae%c0%ae/private/secret.key", "/whl/./../private/secret.key",
                                "/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl%00.html"}) {
    EXPECT_EQ(curl(path).status, 400) << path;
  }
  for (const std::string path :
       {"/%252e%252e/private/secret.key", "/%252e%252e%252fprivate%252fsecret.key", "/escape.whl",
        "/outdir/secret.key", "/outdir/", "/passwd", "/whl/nightly/cpu/mini/relative-escape.whl",
        "/.relforge.lock", "/%2erelforge.lock", "/.hidden/secret.key", "/etc/passwd", "/private/secret.key",
        "/whl/nightly/cpu/mini/index.html/", "/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl/"}) {
    EXPECT_EQ(curl(path).status, 404) << path;
  }
  EXPECT_EQ(curl("/" + std::string(5000, 'a')).status, 414);
  EXPECT_EQ(curl("/" + std::string(2047, 'a')).status, 404);
  const auto page = curl("/whl/nightly/cpu/mini/", "-H 'Accept: text/html'");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, "<html>mini</html>");
  EXPECT_EQ(curl("/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl").body, m_wheel);
}

// Control bytes in the decoded path are 400 and nothing of the path comes back; pages go out as
// they are whatever Accept-Encoding says, so no cache can hand one coding to a client that asked
// for another; a 304 carries the 200's caching fields; a redirect keeps its query.
TEST_F(ServeHostile, ControlBytesCodingsRevalidationAndRedirectsOverCurl) {
  for (const std::string path : {"/%0a%3Cscript%3Ealert(1)%3C/script%3E", "/whl/%0A/../../../etc/passwd",
                                 "/%0d", "/whl/%09x", "/%7f"}) {
    const auto answer = curl(path);
    EXPECT_EQ(answer.status, 400) << path;
    EXPECT_EQ(answer.body.find("script"), std::string::npos) << answer.body;
    EXPECT_EQ(answer.body.find("passwd"), std::string::npos) << answer.body;
  }
  EXPECT_EQ(curl("/not-here").body, "not found\n");
  for (const std::string coding : {"gzip", "br", "gzip;q=0, br;q=0", "gzip, deflate, br"}) {
    const auto page =
        curl("/whl/nightly/cpu/mini/", "-H 'Accept: text/html' -H 'Accept-Encoding: " + coding + "'");
    EXPECT_EQ(page.status, 200);
    EXPECT_EQ(page.body, "<html>mini</html>") << coding;
    EXPECT_EQ(relforge::core::to_lower(page.headers).find("content-encoding"), std::string::npos)
        << page.headers;
  }
  const auto page = curl("/whl/nightly/cpu/mini/", "-H 'Accept: text/html'");
  const auto etag_at = page.headers.find("ETag: ");
  ASSERT_NE(etag_at, std::string::npos) << page.headers;
  const std::string etag = page.headers.substr(etag_at + 6, page.headers.find('\r', etag_at) - etag_at - 6);
  const auto again =
      curl("/whl/nightly/cpu/mini/", "-H 'Accept: text/html' -H 'If-None-Match: " + etag + "'");
  EXPECT_EQ(again.status, 304);
  EXPECT_NE(again.headers.find("Vary: Accept\r\n"), std::string::npos) << again.headers;
  EXPECT_NE(again.headers.find("Cache-Control: max-age=60\r\n"), std::string::npos) << again.headers;
  EXPECT_NE(again.headers.find("Content-Length: 17\r\n"), std::string::npos) << again.headers;
  // PEP 691's own spelling of the format query, '+' and all, and the same through a redirect.
  const auto json = curl("/whl/nightly/cpu/mini/?format=application/vnd.pypi.simple.v1+json");
  EXPECT_EQ(json.status, 200);
  EXPECT_NE(json.headers.find("Content-Type: application/vnd.pypi.simple.v1+json"), std::string::npos)
      << json.headers;
  const auto moved = curl("/whl/nightly/cpu/mini?format=application/vnd.pypi.simple.v1+json");
  EXPECT_EQ(moved.status, 301);
  EXPECT_NE(moved.headers.find("Location: /whl/nightly/cpu/mini/?format=application/vnd.pypi.simple.v1+json"),
            std::string::npos)
      << moved.headers;
  // HEAD answers with GET's fields: a page takes no ranges either way.
  EXPECT_NE(curl("/whl/nightly/cpu/mini/", "-I").headers.find("Accept-Ranges: none"), std::string::npos);
  EXPECT_NE(curl("/whl/nightly/cpu/mini/").headers.find("Accept-Ranges: none"), std::string::npos);
}

TEST_F(ServeHostile, TraversalInRawRequestLinesIsRefused) {
  for (const std::string target : {"//etc/passwd", "/../private/secret.key", "/..\\private\\secret.key",
                                   "/%2e%2e/private/secret.key", "http://127.0.0.1/../private/secret.key",
                                   "*", "../private/secret.key", "/whl/.%2e/.%2e/private/secret.key"}) {
    const auto answer = raw("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400 ")) << target << ": " << answer;
  }
  const auto hidden = raw("HEAD /.relforge.lock HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(hidden.starts_with("HTTP/1.1 404 ")) << hidden;
  EXPECT_TRUE(raw("GET /escape.whl HTTP/1.0\r\n\r\n").starts_with("HTTP/1.1 404 "));
}

TEST_F(ServeHostile, ByteRangesOverCurl) {
  const std::string wheel = "/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl";
  const auto first = curl(wheel, "-r 0-4");
  EXPECT_EQ(first.status, 206);
  EXPECT_EQ(first.body, "abcde");
  EXPECT_NE(first.headers.find("Content-Range: bytes 0-4/100000\r\n"), std::string::npos) << first.headers;
  EXPECT_NE(first.headers.find("Content-Length: 5\r\n"), std::string::npos);
  const auto suffix = curl(wheel, "-r -500");
  EXPECT_EQ(suffix.status, 206);
  EXPECT_EQ(suffix.body, m_wheel.substr(99500));
  const auto open = curl(wheel, "-r 99990-");
  EXPECT_EQ(open.status, 206);
  EXPECT_EQ(open.body, m_wheel.substr(99990));
  EXPECT_NE(open.headers.find("Content-Range: bytes 99990-99999/100000\r\n"), std::string::npos);
  for (const std::string range : {"100000-", "200000-300000", "-0"}) {
    const auto past = curl(wheel, "-r " + range);
    EXPECT_EQ(past.status, 416) << range;
    EXPECT_NE(past.headers.find("Content-Range: bytes */100000\r\n"), std::string::npos) << past.headers;
  }
  const auto several = curl(wheel, "-r 0-1,5-6");
  EXPECT_EQ(several.status, 200);
  EXPECT_EQ(several.body, m_wheel);
  const auto malformed = curl(wheel, "-H 'Range: bytes=zz'");
  EXPECT_EQ(malformed.status, 200);
  EXPECT_EQ(malformed.body, m_wheel);
  EXPECT_NE(malformed.headers.find("Accept-Ranges: bytes\r\n"), std::string::npos);
  // A burst of requests past the end on many connections: each answered, then the server still
  // serves the whole file at once.
  std::vector<std::thread> burst;
  for (int i = 0; i < 16; ++i) {
    burst.emplace_back([this, wheel] {
      std::string many;
      for (int k = 0; k < 20; ++k)
        many += "GET " + wheel + " HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=999999999-\r\n\r\n";
      raw_exchange(m_port, many + "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    });
  }
  for (auto& t : burst) t.join();
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(curl(wheel, "--max-time 5").body, m_wheel);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

TEST_F(ServeHostile, MethodsOtherThanGetAndHeadAre405) {
  const auto big = m_dir / "big.bin";
  std::ofstream(big) << std::string(3 << 20, 'x');
  for (const std::string& options :
       std::vector<std::string>{"-X POST", "-X PUT", "-X DELETE", "-X OPTIONS", "-X PATCH",
                                "-X POST --data-binary @" + big.string(), "-X PUT -T " + big.string()}) {
    const auto answer = curl("/whl/nightly/cpu/mini/", options);
    EXPECT_EQ(answer.status, 405) << options;
    EXPECT_NE(answer.headers.find("Allow: GET, HEAD\r\n"), std::string::npos) << options << answer.headers;
  }
  const auto trace = raw("TRACE / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(trace.starts_with("HTTP/1.1 405 ")) << trace;
  const auto head = curl("/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl", "-I");
  EXPECT_EQ(head.status, 200);
  EXPECT_NE(head.headers.find("Content-Length: 100000\r\n"), std::string::npos);
}

TEST_F(ServeHostile, OversizedHeadsAndSlowClients) {
  EXPECT_TRUE(raw("GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                  .starts_with("HTTP/1.1 414 "));
  std::string fields;
  for (int i = 0; i < 2000; ++i) fields += "X-F" + std::to_string(i) + ": " + std::string(40, 'v') + "\r\n";
  EXPECT_TRUE(raw("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields + "\r\n").starts_with("HTTP/1.1 431 "));
  EXPECT_TRUE(raw("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + std::string(1 << 20, 'v') + "\r\n\r\n")
                  .starts_with("HTTP/1.1 431 "));
  // Both request threads held by clients that never finish their head (slowloris): they are
  // dropped after --header-timeout and the server answers again.
  std::vector<std::thread> slow;
  for (int i = 0; i < 2; ++i) {
    slow.emplace_back([this] {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(static_cast<std::uint16_t>(m_port));
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
        const std::string_view start = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        ::send(fd, start.data(), start.size(), MSG_NOSIGNAL);
        for (int k = 0; k < 100; ++k) {
          if (::send(fd, "X", 1, MSG_NOSIGNAL) <= 0) break;
          pollfd p{fd, POLLIN, 0};
          if (::poll(&p, 1, 100) > 0) break;  // the server answered (408) and closes
        }
      }
      ::close(fd);
    });
  }
  std::this_thread::sleep_for(300ms);
  const auto started = std::chrono::steady_clock::now();
  const auto answer = curl("/whl/nightly/cpu/mini/", "--max-time 8");
  EXPECT_EQ(answer.status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 4s);
  for (auto& t : slow) t.join();
}

TEST_F(ServeHostile, SlowDownloadsOverCurlHoldNoThread) {
  // Three curls take a 32 MiB wheel at 6 MB/s (more than the sockets buffer) from a server with two
  // request threads: while they read, a page is still answered at once, and each gets every byte.
  const std::string name = "mini-2.0-py3-none-any.whl";
  std::string big(std::size_t{32} << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 2654435761u) >> 13);
  std::ofstream(root() / "whl" / "nightly" / "cpu" / "mini" / name, std::ios::binary) << big;
  std::vector<std::thread> slow;
  for (int i = 0; i < 3; ++i) {
    slow.emplace_back([this, i, name] {
      run_shell("curl -s --limit-rate 6M --max-time 60 -o " +
                shell_quote((m_dir / ("slow" + std::to_string(i))).string()) + " " +
                shell_quote(base() + "/whl/nightly/cpu/mini/" + name));
    });
  }
  std::this_thread::sleep_for(700ms);
  const auto started = std::chrono::steady_clock::now();
  const auto page = curl("/whl/nightly/cpu/mini/", "--max-time 8");
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(page.status, 200);
  EXPECT_LT(took, 1000ms) << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
  for (auto& t : slow) t.join();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(slurp(m_dir / ("slow" + std::to_string(i))) == big) << i;
}

TEST_F(ServeHostile, OneClientsConnectionsPushOutOnlyItsOwn) {
  // Another client (127.0.0.2) is part-way through its request when one address opens 600
  // connections that send half a head, more than the server's 512: at its 64 (the default
  // --max-connections-per-client) the flooding client's own oldest are closed, not the other's.
  const std::string half = "GET /whl/nightly/cpu/mini/ HTTP/1.1\r\n";
  RawClient other(m_port, "127.0.0.2");
  ASSERT_TRUE(other.connected());
  ASSERT_TRUE(other.send(half));
  std::vector<std::unique_ptr<RawClient>> flood;
  for (int i = 0; i < 600; ++i) {
    flood.push_back(std::make_unique<RawClient>(m_port, "127.0.0.1"));
    ASSERT_TRUE(flood.back()->connected()) << i;
    flood.back()->send(half);
  }
  std::this_thread::sleep_for(200ms);  // well inside --header-timeout 1
  ASSERT_TRUE(other.send("Host: 127.0.0.1\r\nConnection: close\r\n\r\n"));
  const std::string answer = other.read_all();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 ")) << answer.substr(0, 200);
  EXPECT_NE(answer.find("<html>mini</html>"), std::string::npos);
  // The flooding client's oldest connection was closed unanswered; its newest is still waiting.
  char byte = 0;
  const ssize_t oldest = ::recv(flood.front()->fd(), &byte, 1, MSG_DONTWAIT);
  EXPECT_TRUE(oldest == 0 || (oldest < 0 && errno == ECONNRESET)) << oldest << " " << errno;
  EXPECT_FALSE(flood.back()->readable());
  flood.clear();
  // The limit is a number from 0 (none) to the server's 512.
  const auto refused =
      run_shell(shell_quote(relforge::test::relforge_binary()) +
                " serve --max-connections-per-client 513 --root " + shell_quote(root().string()));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--max-connections-per-client"), std::string::npos) << refused.err;
}

// A port is 0 to 65535: 70000 was taken modulo 65536 and served on 4464 while the banner said 70000.
TEST(ServeCli, APortOutsideTheTcpRangeIsRefused) {
  const fs::path root = fs::temp_directory_path() / ("relforge-serve-port-" + std::to_string(::getpid()));
  fs::create_directories(root);
  for (const char* port : {"70000", "65536", "-1"}) {
    const auto refused = run_shell("timeout 10 " + shell_quote(relforge::test::relforge_binary()) +
                                   " serve --port " + port + " --root " + shell_quote(root.string()));
    EXPECT_EQ(refused.exit_code, 2) << port << ": " << refused.out << refused.err;
    EXPECT_NE(refused.err.find("--port"), std::string::npos) << refused.err;
    EXPECT_EQ(refused.out, "") << port;
  }
  fs::remove_all(root);
}

// ---- the relay ----

constexpr const char* k_relay_secret = "e2e hostile secret";

class RelayHostile : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-relay-hostile-" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    std::ofstream(m_dir / "relay.toml")
        << "[relay]\nupstream = \"Codertocat/Hello-World\"\nbranch = \"master\"\n"
           "secret_env = \"RELAY_SECRET\"\napi_base = \"http://127.0.0.1:9\"\nmax_body_bytes = 100000\n\n"
           "[[downstream]]\nrepo = \"octo-org/octo-repo\"\ntier = \"L2\"\ncallback_secret_env = "
           "\"CALLBACK\"\n";
    m_relay.start("RELAY_SECRET=" + shell_quote(k_relay_secret) + " CALLBACK=cb " +
                      shell_quote(relforge::test::relforge_binary()) + " relay serve --config " +
                      shell_quote((m_dir / "relay.toml").string()) + " --db " +
                      shell_quote((m_dir / "relay.db").string()) + " --port 0 --port-file " +
                      shell_quote((m_dir / "port").string()),
                  m_dir / "log");
    for (int i = 0; i < 400 && m_port == 0; ++i) {
      const std::string text = slurp(m_dir / "port");
      if (!text.empty())
        m_port = std::stoi(text);
      else
        std::this_thread::sleep_for(25ms);
    }
    ASSERT_GT(m_port, 0) << slurp(m_dir / "log");
  }
  void TearDown() override {
    m_relay.stop();
    fs::remove_all(m_dir);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(m_port) + path;
  }
  std::string sqlite(const std::string& sql) const {
    const auto result =
        run_shell("sqlite3 " + shell_quote((m_dir / "relay.db").string()) + " " + shell_quote(sql));
    return result.out.substr(0, result.out.find_last_not_of('\n') + 1);
  }
  std::string signature(const fs::path& file, const std::string& secret) const {
    const auto result = run_shell("openssl dgst -sha256 -hmac " + shell_quote(secret) + " -hex < " +
                                  shell_quote(file.string()));
    return "sha256=" + result.out.substr(result.out.rfind("= ") + 2, 64);
  }
  // curl with a chunked body read from `file`; returns the status.
  int post_chunked(const std::string& path, const fs::path& file, const std::string& headers) const {
    const auto result =
        run_shell("curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Transfer-Encoding: chunked' " +
                  headers + " --data-binary @" + shell_quote(file.string()) + " " + shell_quote(url(path)));
    return result.out.empty() ? -1 : std::stoi(result.out);
  }
  long peak_rss_kb() const {
    const std::string status = slurp("/proc/" + std::to_string(m_relay.pid()) + "/status");
    const auto at = status.find("VmHWM:");
    return at == std::string::npos ? -1 : std::stol(status.substr(at + 6));
  }

  fs::path m_dir;
  Background m_relay;
  int m_port = 0;
};

TEST_F(RelayHostile, BehindItsProxyOneAddressMayHoldManyWaitingConnections) {
  // Every connection through the relay's TLS proxy comes from one address: by default the relay
  // keeps 100 of them waiting at once (serve's default limit per client, 64, would close 36).
  std::vector<std::unique_ptr<RawClient>> proxied;
  for (int i = 0; i < 100; ++i) {
    proxied.push_back(std::make_unique<RawClient>(m_port, "127.0.0.1"));
    ASSERT_TRUE(proxied.back()->send("GET /api/health HTTP/1.1\r\n")) << i;
  }
  std::this_thread::sleep_for(200ms);
  for (auto& client : proxied) {
    ASSERT_TRUE(client->send("Host: 127.0.0.1\r\nConnection: close\r\n\r\n"));
    EXPECT_TRUE(client->read_all().starts_with("HTTP/1.1 200 "));
  }
}

TEST_F(RelayHostile, ChunkedBodiesOverTheLimitAre413AndNothingIsStored) {
  const auto push = m_dir / "push.json";
  fs::copy_file(fs::path(relforge::test::source_dir()) /
                    "tests/fixtures/github-webhooks/push/with-new-branch.payload.json",
                push);
  const std::string events = "-H 'X-GitHub-Event: push' -H 'Content-Type: application/json' ";
  EXPECT_EQ(post_chunked("/webhook", push,
                         events + "-H 'X-GitHub-Delivery: small' -H " +
                             shell_quote("X-Hub-Signature-256: " + signature(push, k_relay_secret))),
            202);
  // A validly signed delivery of 300 KB (limit 100000), sent chunked.
  const auto big = m_dir / "big.json";
  std::ofstream(big) << "{\"pad\": \"" << std::string(300000, 'x') << "\"}";
  EXPECT_EQ(post_chunked("/webhook", big,
                         events + "-H 'X-GitHub-Delivery: big' -H " +
                             shell_quote("X-Hub-Signature-256: " + signature(big, k_relay_secret))),
            413);
  EXPECT_EQ(post_chunked("/api/results", big,
                         "-H 'X-Relforge-Repository: octo-org/octo-repo' -H " +
                             shell_quote("X-Relforge-Signature-256: " + signature(big, "cb"))),
            413);
  // 200 MB, unsigned, streamed chunked from stdin: refused at the limit, never held in memory.
  const long before = peak_rss_kb();
  const auto flood =
      run_shell("head -c 200000000 /dev/zero | curl -s -o /dev/null -w '%{http_code}' -X POST -T - " +
                events + "-H 'X-GitHub-Delivery: flood' " + shell_quote(url("/webhook")));
  EXPECT_EQ(flood.out, "413");
  const std::string raw = raw_exchange(m_port,
                                       "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: "
                                       "chunked\r\nX-GitHub-Event: push\r\n\r\n" +
                                           std::string("fffffff\r\n") + std::string(1 << 20, 'x'));
  EXPECT_TRUE(raw.starts_with("HTTP/1.1 413 ")) << raw;
  const long after = peak_rss_kb();
  std::cout << "relay peak RSS before the floods: " << before << " KiB, after: " << after << " KiB\n";
  EXPECT_GT(before, 0);
  EXPECT_LT(after - before, 50 * 1024) << "peak RSS grew by " << (after - before) << " KiB";
  EXPECT_EQ(sqlite("SELECT COUNT(*) FROM deliveries WHERE delivery_id = 'small'"), "1");
  EXPECT_EQ(sqlite("SELECT COUNT(*) FROM deliveries WHERE delivery_id != 'small'"), "0");
  // Still serving.
  EXPECT_EQ(run_shell("curl -s -o /dev/null -w '%{http_code}' " + shell_quote(url("/api/health"))).out,
            "200");
}

TEST_F(RelayHostile, WrongMethodsAre405AndLengthsOverTheLimit413BeforeReading) {
  const auto get =
      raw_exchange(m_port, "GET /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(get.starts_with("HTTP/1.1 405 ")) << get;
  EXPECT_NE(get.find("Allow: POST\r\n"), std::string::npos);
  const auto put =
      raw_exchange(m_port, "PUT /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 999999999\r\n\r\n");
  EXPECT_TRUE(put.starts_with("HTTP/1.1 405 ")) << put;
  const auto post = raw_exchange(
      m_port, "POST /api/grid HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n0123456789");
  EXPECT_TRUE(post.starts_with("HTTP/1.1 405 ")) << post;
  EXPECT_NE(post.find("Allow: GET, HEAD\r\n"), std::string::npos);
  const auto large =
      raw_exchange(m_port, "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100001\r\n\r\n");
  EXPECT_TRUE(large.starts_with("HTTP/1.1 413 ")) << large;
  const auto smuggle = raw_exchange(m_port,
                                    "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                                    "4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
  EXPECT_TRUE(smuggle.starts_with("HTTP/1.1 400 ")) << smuggle;
  EXPECT_EQ(sqlite("SELECT COUNT(*) FROM deliveries"), "0");
}

}  // namespace
