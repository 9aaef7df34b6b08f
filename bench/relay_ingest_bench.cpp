// Sustained webhook ingest: signed workflow_job deliveries over loopback HTTP into the real relay
// service (HTTP server, signature check, group-committed durable intake with WAL and
// synchronous=FULL, the background normaliser running), from K keep-alive connections each with
// one request in flight, a bounded request count, unique X-GitHub-Delivery ids.
// Usage: relay_ingest_bench [--deliveries N] [--connections K] [--no-worker]   (defaults 40000, 48)
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "bench/relay_bench_client.hpp"
#include "bench/report.hpp"
#include "ci_relay/hmac.hpp"
#include "ci_relay/relay.hpp"
#include "ci_relay/service.hpp"
#include "platform/http_server.hpp"

namespace fs = std::filesystem;
using namespace relforge;

namespace {

ci_relay::RelayConfig bench_config() {
  ci_relay::RelayConfig config;
  config.upstream = "up/runtime";
  config.webhook_secret = "It's a Secret to Everybody";
  config.api_base = "http://127.0.0.1:9";
  config.fetch_logs = ci_relay::FetchLogs::no;
  config.downstream = {{"v/accel", ci_relay::Tier::l4, "accel", "t", "c"},
                       {"v/vision", ci_relay::Tier::l3, "vision", "t", "c"}};
  return config;
}

// A workflow_job payload about the size of GitHub's (steps, labels, runner fields).
std::string payload(int n) {
  const int run = 100000 + n / 3;
  const char* actions[] = {"queued", "in_progress", "completed"};
  const std::string action = actions[n % 3];
  nlohmann::json steps = nlohmann::json::array();
  for (int s = 1; s <= 6; ++s) {
    steps.push_back({{"name", "Step " + std::to_string(s)},
                     {"status", "completed"},
                     {"conclusion", "success"},
                     {"number", s},
                     {"started_at", "2025-06-15T10:0" + std::to_string(s) + ":00Z"},
                     {"completed_at", "2025-06-15T10:0" + std::to_string(s) + ":30Z"}});
  }
  nlohmann::json job = {
      {"id", run * 10 + 1},
      {"run_id", run},
      {"run_attempt", 1},
      {"head_sha", "a1b2c3d4e5f60718293a4b5c6d7e8f9012345" + std::to_string(100 + n % 900)},
      {"head_branch", "main"},
      {"name", "test (default, " + std::to_string(n % 4 + 1) + ", 4, linux.2xlarge)"},
      {"workflow_name", "ci"},
      {"status", action},
      {"conclusion", action == "completed" ? nlohmann::json("success") : nlohmann::json(nullptr)},
      {"created_at", "2025-06-15T10:00:00Z"},
      {"started_at", "2025-06-15T10:01:00Z"},
      {"completed_at",
       action == "completed" ? nlohmann::json("2025-06-15T10:09:00Z") : nlohmann::json(nullptr)},
      {"html_url", "https://github.com/v/accel/actions/runs/" + std::to_string(run) + "/job/" +
                       std::to_string(run * 10 + 1)},
      {"labels", {"self-hosted", "linux", "x64", "accel"}},
      {"runner_name", "accel-runner-" + std::to_string(n % 32)},
      {"runner_group_name", "accel"},
      {"steps", steps}};
  return nlohmann::json{{"action", action},
                        {"workflow_job", job},
                        {"repository", {{"full_name", "v/accel"}, {"private", false}}},
                        {"sender", {{"login", "github-actions[bot]"}, {"type", "Bot"}}}}
      .dump();
}

std::string request_for(int n, const std::string& secret) {
  const std::string body = payload(n);
  return "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: GitHub-Hookshot/bench\r\n"
         "Content-Type: application/json\r\nX-GitHub-Event: workflow_job\r\nX-GitHub-Delivery: bench-" +
         std::to_string(n) + "\r\nX-Hub-Signature-256: " + ci_relay::github_signature(secret, body) +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::int64_t scalar(platform::Database& db, const std::string& sql) {
  auto stmt = db.prepare(sql);
  if (!stmt || !*stmt->step()) return -1;
  return stmt->column_int(0);
}

}  // namespace

int main(int argc, char** argv) {
  int deliveries = 40000, connections = 48;
  bool worker = true;  // --no-worker: intake alone, normalisation after the run
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-worker") worker = false;
    if (i + 1 >= argc) continue;
    if (arg == "--deliveries") deliveries = std::stoi(argv[++i]);
    if (arg == "--connections") connections = std::stoi(argv[++i]);
  }
  const fs::path dir = fs::temp_directory_path() / ("relforge-relay-ingest-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto relay = ci_relay::Relay::open(bench_config(), dir / "relay.db");
  if (!relay) {
    std::cerr << relay.error().describe() << '\n';
    return 1;
  }
  std::vector<std::string> requests;
  requests.reserve(static_cast<std::size_t>(deliveries));
  for (int n = 0; n < deliveries; ++n) requests.push_back(request_for(n, relay->config().webhook_secret));

  std::vector<double> latencies(static_cast<std::size_t>(deliveries));
  std::atomic<int> next{0}, bad{0};
  std::atomic<long> client_cpu_us{0};  // the load generator's own CPU, to tell it from the server's
  double seconds = 0;
  double drain_seconds = 0;
  double cpu_seconds = 0;  // server, normaliser and load generator together
  int left_after_run = 0;  // deliveries still pending when the clock stopped
  double drain_cpu = 0;    // CPU of normalising those afterwards
  {
    ci_relay::RelayService service(*relay, [] { return std::int64_t{1'750'000'000}; });
    platform::HttpServer server;
    service.install(server);
    auto port = server.bind("127.0.0.1", 0);
    if (!port) {
      std::cerr << port.error().describe() << '\n';
      return 1;
    }
    std::thread serving([&] { (void)server.serve(); });
    if (worker)
      service.start_worker([](const ci_relay::OutboundCall&) { return ci_relay::OutboundAnswer{201, ""}; });
    // Connect first, one at a time: httplib listens with a backlog of 5, and a burst of connects
    // overflows it (the kernel then retries the SYN after 1 s, 3 s, ...), which would time TCP
    // back-off instead of the relay.
    std::vector<std::unique_ptr<bench::KeepAliveClient>> sockets;
    for (int c = 0; c < connections; ++c) sockets.push_back(std::make_unique<bench::KeepAliveClient>(*port));
    const double cpu_start = bench::process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> clients;
    for (int c = 0; c < connections; ++c) {
      clients.emplace_back([&, c] {
        const double thread_cpu_start = bench::thread_cpu_seconds();
        try {
          bench::KeepAliveClient& client = *sockets[static_cast<std::size_t>(c)];
          std::string body;
          for (int n = next++; n < deliveries; n = next++) {
            const auto sent = std::chrono::steady_clock::now();
            if (client.exchange(requests[static_cast<std::size_t>(n)], body) != 202) ++bad;
            latencies[static_cast<std::size_t>(n)] = bench::ms_since(sent);
          }
        } catch (const std::exception& e) {
          std::cerr << "client: " << e.what() << '\n';
          ++bad;
        }
        client_cpu_us += static_cast<long>((bench::thread_cpu_seconds() - thread_cpu_start) * 1e6);
      });
    }
    for (auto& t : clients) t.join();
    seconds = bench::ms_since(start) / 1000;
    cpu_seconds = bench::process_cpu_seconds() - cpu_start;
    // Close the keep-alive connections first: the server's threads would otherwise sit in their
    // 5 s keep-alive wait, and that wait would be counted as normalisation time below.
    sockets.clear();
    server.stop();
    serving.join();
    service.stop_worker();
    // Normalisation runs behind the acknowledgements; finish what is left and time the catch-up.
    const double drain_cpu_start = bench::thread_cpu_seconds();
    if (auto rest = relay->process_pending(); !rest)
      std::cerr << rest.error().describe() << '\n';
    else
      left_after_run = *rest;
    drain_cpu = bench::thread_cpu_seconds() - drain_cpu_start;
    drain_seconds = bench::ms_since(start) / 1000;
  }
  const auto stored = scalar(relay->db(), "SELECT COUNT(*) FROM deliveries");
  const auto jobs = scalar(relay->db(), "SELECT COUNT(*) FROM jobs");
  const auto sync = scalar(relay->db(), "PRAGMA synchronous");
  auto mode = relay->db().prepare("PRAGMA journal_mode");
  const std::string journal = mode && *mode->step() ? mode->column_text(0) : "?";
  const double rate = deliveries / seconds;
  const bool pass = bad == 0 && stored == deliveries;  // every delivery acknowledged and stored
  std::cout << "relay ingest: " << deliveries << " signed workflow_job deliveries over " << connections
            << " keep-alive connections in " << seconds << " s\n";
  std::cout << "  acknowledged durably: " << static_cast<long>(rate) << " deliveries/s, latency p50 "
            << bench::percentile(latencies, 50) << " ms, p99 " << bench::percentile(latencies, 99) << " ms\n";
  std::cout << "  durability: journal_mode=" << journal << ", synchronous=" << sync
            << " (1: the committer fdatasyncs the log after each commit, outside the lock, before "
               "answering; 2: each commit fsyncs itself; one commit per group of concurrent "
               "deliveries either way); stored "
            << stored << "/" << deliveries << ", non-202 answers " << bad << "\n";
  const double client_cpu = static_cast<double>(client_cpu_us.load()) / 1e6;
  std::cout << "  CPU: " << cpu_seconds << " s (user+sys) during the run: load generator " << client_cpu
            << " s, relay (HTTP, intake, normaliser) " << cpu_seconds - client_cpu
            << " s = " << static_cast<long>(deliveries / (cpu_seconds - client_cpu))
            << " deliveries per relay CPU-second\n";
  std::cout << "  normalised into " << jobs << " job rows; all normalised after " << drain_seconds << " s ("
            << static_cast<long>(deliveries / drain_seconds) << "/s); " << left_after_run
            << " were still pending when the clock stopped, normalised afterwards in " << drain_cpu
            << " CPU-s";
  if (left_after_run > 0) std::cout << " (" << drain_cpu * 1e6 / left_after_run << " us each)";
  std::cout << "\n";
  const std::string input =
      std::to_string(deliveries) + " signed workflow_job deliveries over " + std::to_string(connections) +
      " keep-alive loopback connections, fsync per commit" + (worker ? "" : ", normaliser deferred");
  const double p99 = bench::percentile(latencies, 99);
  bench::record(
      {{"name", "relay ingest, durable"},
       {"input", input},
       {"figure", {{"value", pass ? rate : 0.0}, {"unit", "deliveries/s"}}},
       {"target", bench::target("figure", ">=", 7500, ">= 7,500/s durable")},
       {"notes", "p99 " + bench::fixed(p99) + " ms; relay CPU " + bench::fixed(cpu_seconds - client_cpu) +
                     " s, load generator " + bench::fixed(client_cpu) + " s"}});
  bench::record({{"name", "relay ingest p99 latency"},
                 {"input", input},
                 {"figure", {{"value", p99}, {"unit", "ms"}}},
                 {"target", bench::target("figure", "<", 25, "< 25 ms")}});
  bench::record(
      {{"name", "relay ingest per relay CPU-second"},
       {"input", input},
       {"figure", {{"value", deliveries / (cpu_seconds - client_cpu)}, {"unit", "deliveries/CPU-s"}}},
       {"target", {{"op", "report"}, {"text", "reported"}}}});
  fs::remove_all(dir);
  return 0;
}
