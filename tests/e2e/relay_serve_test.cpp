// End-to-end: the real `relforge relay serve` on a loopback port, driven with curl and the
// openssl CLI (for signatures), inspected with the sqlite3 CLI; and a kill -9 during a burst.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "platform/http_client.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::run_shell;
using relforge::test::shell_quote;
using relforge::test::slurp;

constexpr const char* k_webhook_secret = "e2e webhook secret";

std::filesystem::path fixtures() {
  return std::filesystem::path(relforge::test::source_dir()) / "tests" / "fixtures" / "github-webhooks";
}

class RelayServer {
public:
  explicit RelayServer(const std::string& name) {
    m_dir = std::filesystem::temp_directory_path() /
            ("relforge-relay-e2e-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
    std::ofstream(m_dir / "relay.toml")
        << "[relay]\nupstream = \"Codertocat/Hello-World\"\nbranch = \"master\"\n"
           "secret_env = \"RELAY_SECRET\"\napi_base = \"http://127.0.0.1:9\"\n"
           "max_body_bytes = 100000\n\n"
           "[[downstream]]\nrepo = \"octo-org/octo-repo\"\ntier = \"L2\"\n\n"
           "[[downstream]]\nrepo = \"github/hello-world\"\ntier = \"L4\"\n";
  }
  ~RelayServer() {
    stop(SIGKILL);
    std::filesystem::remove_all(m_dir);
  }

  // Starts the binary on port 0 and waits (bounded) for it to write its port. `wrapper` runs it
  // (strace with its options, say); its pid is then the one stopped.
  int start(const std::string& wrapper = "") {
    std::filesystem::remove(m_dir / "port");
    const auto started =
        run_shell("RELAY_SECRET=" + shell_quote(k_webhook_secret) + " " + wrapper + " " +
                  shell_quote(relforge::test::relforge_binary()) + " relay serve --config " +
                  shell_quote((m_dir / "relay.toml").string()) + " --db " + shell_quote(db()) +
                  " --port 0 --port-file " + shell_quote((m_dir / "port").string()) + " >>" +
                  shell_quote((m_dir / "log").string()) + " 2>&1 & echo $!");
    m_pid = std::stoi(started.out);
    for (int i = 0; i < 400 && m_port == 0; ++i) {
      const std::string text = slurp(m_dir / "port");
      if (!text.empty())
        m_port = std::stoi(text);
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return m_port;
  }
  void stop(int signal) {
    if (m_pid <= 0) return;
    // Under a wrapper the relay is its child (strace holds fatal signals back while it traces).
    run_shell("kill -" + std::to_string(signal) + " $(cat /proc/" + std::to_string(m_pid) + "/task/" +
              std::to_string(m_pid) + "/children 2>/dev/null) 2>/dev/null");
    ::kill(m_pid, signal);
    run_shell("while kill -0 " + std::to_string(m_pid) + " 2>/dev/null; do sleep 0.05; done");
    m_pid = -1;
    m_port = 0;
  }
  std::string db() const { return (m_dir / "relay.db").string(); }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(m_port) + path;
  }
  std::string sqlite(const std::string& sql) const {
    auto result = run_shell("sqlite3 " + shell_quote(db()) + " " + shell_quote(sql));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return std::string(result.out.substr(0, result.out.find_last_not_of('\n') + 1));
  }
  // Waits (bounded) until the worker has normalised everything stored.
  void drain() const {
    for (int i = 0; i < 400 && sqlite("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'") != "0";
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  const std::filesystem::path& dir() const { return m_dir; }
  std::string log() const { return slurp(m_dir / "log"); }

private:
  std::filesystem::path m_dir;
  int m_pid = -1;
  int m_port = 0;
};

std::string signature_of(const std::filesystem::path& file, const std::string& secret) {
  auto result = run_shell("openssl dgst -sha256 -hmac " + shell_quote(secret) + " -hex < " +
                          shell_quote(file.string()));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto at = result.out.rfind("= ");
  return "sha256=" + result.out.substr(at + 2, 64);
}

// curl POST; returns the HTTP status code.
int curl_post(const std::string& url, const std::filesystem::path& body, const std::string& event,
              const std::string& id, const std::string& signature) {
  std::string command =
      "curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -H " +
      shell_quote("X-GitHub-Event: " + event) + " -H " + shell_quote("X-GitHub-Delivery: " + id);
  if (!signature.empty()) command += " -H " + shell_quote("X-Hub-Signature-256: " + signature);
  auto result = run_shell(command + " --data-binary @" + shell_quote(body.string()) + " " + shell_quote(url));
  return result.out.empty() ? -1 : std::stoi(result.out);
}

TEST(RelayServe, RealFixturesOverCurlWithSignaturesLandInSqliteSlow) {
  RelayServer server("fixtures");
  ASSERT_GT(server.start(), 0) << server.log();
  int n = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(fixtures())) {
    if (entry.path().extension() != ".json") continue;
    const std::string event = entry.path().parent_path().filename().string();
    const int code = curl_post(server.url("/webhook"), entry.path(), event, "fx-" + std::to_string(n++),
                               signature_of(entry.path(), k_webhook_secret));
    EXPECT_EQ(code, 202) << entry.path();
  }
  ASSERT_EQ(n, 15);
  const auto push = fixtures() / "push" / "with-new-branch.payload.json";
  EXPECT_EQ(curl_post(server.url("/webhook"), push, "push", "fx-0", signature_of(push, k_webhook_secret)),
            200);  // duplicate
  EXPECT_EQ(curl_post(server.url("/webhook"), push, "push", "wrong", signature_of(push, "not the secret")),
            401);
  EXPECT_EQ(curl_post(server.url("/webhook"), push, "push", "unsigned", ""), 400);
  const auto big = server.dir() / "big.json";
  std::ofstream(big) << "{\"pad\": \"" << std::string(200000, 'x') << "\"}";
  EXPECT_EQ(curl_post(server.url("/webhook"), big, "push", "big", signature_of(big, k_webhook_secret)), 413);
  server.drain();
  EXPECT_EQ(server.sqlite("SELECT COUNT(*) FROM deliveries"), "15");
  EXPECT_EQ(server.sqlite("SELECT COUNT(*) FROM deliveries WHERE state IN ('pending','rejected')"), "0");
  EXPECT_EQ(server.sqlite("SELECT COUNT(*) FROM deliveries WHERE delivery_id IN ('wrong','unsigned','big')"),
            "0");
  EXPECT_EQ(server.sqlite("SELECT sha FROM commits"), "6113728f27ae82c7b1a177c8d03f9e96e0adf246");
  EXPECT_EQ(server.sqlite("PRAGMA journal_mode"), "wal");
  auto page = run_shell("curl -s " + shell_quote(server.url("/")));
  EXPECT_NE(page.out.find("<h1>relforge relay: Codertocat/Hello-World</h1>"), std::string::npos) << page.out;
  auto metrics = run_shell("curl -s " + shell_quote(server.url("/metrics")));
  EXPECT_NE(metrics.out.find("relforge_relay_deliveries{event=\"push\",state=\"processed\"} 1"),
            std::string::npos)
      << metrics.out;
  auto breakages = run_shell("curl -s " + shell_quote(server.url("/api/breakages?open=1")));
  EXPECT_EQ(breakages.out, "[]\n");
  server.stop(SIGTERM);
  EXPECT_EQ(server.log().find("It's"), std::string::npos);
  EXPECT_EQ(server.log().find(k_webhook_secret), std::string::npos);  // secrets never logged
}

TEST(RelayServe, KillNineDuringABurstLosesNoAcknowledgedDeliverySlow) {
  RelayServer server("kill9");
  ASSERT_GT(server.start(), 0) << server.log();
  const std::string url = server.url("/webhook");
  std::set<std::string> acknowledged;
  std::atomic<int> acks{0};
  std::atomic<bool> finished{false};
  std::thread killer([&] {
    while (acks.load() < 60 && !finished.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server.stop(SIGKILL);
  });
  for (int i = 0; i < 200; ++i) {
    const std::string body =
        R"({"action":"completed","repository":{"full_name":"octo-org/octo-repo"},"workflow_job":{"id":)" +
        std::to_string(i) + R"(,"run_id":)" + std::to_string(5000 + i) +
        R"(,"run_attempt":1,"head_sha":"3484a3fb816e0859fd6e1cea078d76385ff50625","name":"build","workflow_name":"CI","status":"completed","conclusion":"success"}})";
    const std::string id = "burst-" + std::to_string(i);
    relforge::platform::HttpClientRequest request;
    request.method = "POST";
    request.url = url;
    request.body = body;
    request.timeout = std::chrono::seconds(5);
    auto sig = run_shell("printf %s " + shell_quote(body) + " | openssl dgst -sha256 -hmac " +
                         shell_quote(k_webhook_secret) + " -hex");
    request.headers = {{"X-GitHub-Event", "workflow_job"},
                       {"X-GitHub-Delivery", id},
                       {"X-Hub-Signature-256", "sha256=" + sig.out.substr(sig.out.rfind("= ") + 2, 64)}};
    auto response = relforge::platform::http_request(request);
    if (i == 0) {
      EXPECT_TRUE(response && response->status == 202)
          << (response ? response->body : response.error().describe());
    }
    if (response && response->status == 202) {
      acknowledged.insert(id);
      ++acks;
    }
    if (!response) break;  // the server is gone
  }
  finished = true;
  killer.join();
  ASSERT_GE(acknowledged.size(), 60U);
  ASSERT_GT(server.start(), 0) << server.log();
  server.drain();
  const std::string stored = server.sqlite("SELECT group_concat(delivery_id, ' ') FROM deliveries");
  for (const auto& id : acknowledged) {
    EXPECT_EQ(server.sqlite("SELECT COUNT(*) FROM deliveries WHERE delivery_id = '" + id + "'"), "1") << id;
  }
  // Every stored delivery (acknowledged or caught mid-reply) is normalised exactly once.
  EXPECT_EQ(server.sqlite("SELECT COUNT(*) FROM deliveries WHERE state != 'processed'"), "0");
  EXPECT_EQ(server.sqlite("SELECT COUNT(*) FROM jobs"), server.sqlite("SELECT COUNT(*) FROM deliveries"));
  server.stop(SIGTERM);
}

// The fsync that makes a delivery durable runs after the database lock is released, before the
// answer. The first fdatasync after the start is SQLite's, of the log's new header inside the
// commit; strace fails every later one with EIO (SQLite ignores a failed sync of the folder that
// comes next), so the relay's own sync of the log fails: no 2xx, the answer says why, and GitHub's
// redelivery is told the delivery is stored (committed, not acknowledged). After a failed fsync the
// kernel may have dropped pages, so a later sync would prove nothing: the next delivery is refused
// without a try, until the relay is restarted.
TEST(RelayServe, NoDeliveryIsAcknowledgedWhenItsLogCannotBeSyncedSlow) {
  RelayServer server("nosync");
  ASSERT_GT(server.start(), 0) << server.log();  // creates and migrates the database
  server.stop(SIGTERM);
  ASSERT_GT(
      server.start("strace -f -o /dev/null -e trace=fdatasync,fsync -e inject=fdatasync:error=EIO:when=2+"),
      0)
      << server.log();
  const auto push = fixtures() / "push" / "with-new-branch.payload.json";
  const std::string signature = signature_of(push, k_webhook_secret);
  auto answer = run_shell(
      "curl -s -w ' %{http_code}' -X POST -H 'X-GitHub-Event: push' -H "
      "'X-GitHub-Delivery: nosync-1' -H " +
      shell_quote("X-Hub-Signature-256: " + signature) + " --data-binary @" + shell_quote(push.string()) +
      " " + shell_quote(server.url("/webhook")));
  EXPECT_TRUE(answer.out.ends_with(" 503")) << answer.out;
  EXPECT_NE(answer.out.find("cannot make the log"), std::string::npos) << answer.out;
  EXPECT_NE(answer.out.find("nothing was acknowledged"), std::string::npos) << answer.out;
  const auto later = fixtures() / "push" / "payload.json";
  auto refused = run_shell(
      "curl -s -w ' %{http_code}' -X POST -H 'X-GitHub-Event: push' -H "
      "'X-GitHub-Delivery: nosync-2' -H " +
      shell_quote("X-Hub-Signature-256: " + signature_of(later, k_webhook_secret)) + " --data-binary @" +
      shell_quote(later.string()) + " " + shell_quote(server.url("/webhook")));
  EXPECT_TRUE(refused.out.ends_with(" 503")) << refused.out;
  EXPECT_NE(refused.out.find("until it is restarted"), std::string::npos) << refused.out;
  server.stop(SIGTERM);
  ASSERT_GT(server.start(), 0) << server.log();
  EXPECT_EQ(curl_post(server.url("/webhook"), push, "push", "nosync-1", signature), 200);  // stored
  server.stop(SIGTERM);
}

// The order of the system calls behind one acknowledged delivery: its row is written to the log,
// the log is fdatasync'd, and only then does the 202 go out.
TEST(RelayServe, TheAnswerFollowsTheFsyncOfTheLogSlow) {
  RelayServer server("order");
  ASSERT_GT(server.start(), 0) << server.log();
  server.stop(SIGTERM);
  const auto trace = server.dir() / "trace";
  ASSERT_GT(server.start("strace -f -y -s 16 -o " + shell_quote(trace.string()) +
                         " -e trace=pwrite64,fdatasync,fsync,sendto,write,writev"),
            0)
      << server.log();
  const auto push = fixtures() / "push" / "with-new-branch.payload.json";
  EXPECT_EQ(curl_post(server.url("/webhook"), push, "push", "order-1", signature_of(push, k_webhook_secret)),
            202);
  server.stop(SIGTERM);
  // strace prints a call when it returns, or "<unfinished ...>" and later "<... NAME resumed>".
  std::ifstream in(trace);
  std::string line;
  long last_log_write = -1, last_log_sync = -1, answered = -1;
  for (long n = 0; std::getline(in, line); ++n) {
    const bool finished = line.find("<unfinished") == std::string::npos;
    if (!finished) continue;
    if (line.find("relay.db-wal>") != std::string::npos && line.find("pwrite64") != std::string::npos &&
        answered < 0)
      last_log_write = n;
    if ((line.find("fdatasync") != std::string::npos || line.find("fsync") != std::string::npos) &&
        answered < 0 &&
        (line.find("relay.db-wal>") != std::string::npos || line.find("resumed>") != std::string::npos))
      last_log_sync = n;
    if (line.find("HTTP/1.1 202") != std::string::npos && answered < 0) answered = n;
  }
  ASSERT_GE(answered, 0) << slurp(trace);
  ASSERT_GE(last_log_write, 0) << slurp(trace);
  EXPECT_GT(last_log_sync, last_log_write) << slurp(trace);
  EXPECT_LT(last_log_sync, answered) << slurp(trace);
}

}  // namespace
