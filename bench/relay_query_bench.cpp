// Read API latency at scale: 1,000,000 job rows (10,000 upstream commits × 100 downstream jobs,
// inserted in one transaction through the store API) plus breakages, then GET /api/grid?limit=50
// and GET /api/breakages?open=1 over a loopback keep-alive connection. Target: p99 < 50 ms each.
// Usage: relay_query_bench [--commits N] [--requests R]   (defaults 10000, 200)
#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "bench/relay_bench_client.hpp"
#include "bench/report.hpp"
#include "ci_relay/relay.hpp"
#include "ci_relay/service.hpp"
#include "platform/http_server.hpp"

namespace fs = std::filesystem;
using namespace relforge;

namespace {

std::string sha(int n) {
  std::string hex = std::to_string(n);
  return std::string(40 - hex.size(), 'c') + hex;
}

bool check(const Status& status) {
  if (!status) std::cerr << status.error().describe() << '\n';
  return static_cast<bool>(status);
}

bool seed(platform::Database& db, int commits, int jobs_per_commit) {
  // One big transaction: keep its pages in memory instead of spilling them to the WAL repeatedly.
  if (!check(db.execute("PRAGMA cache_size=-400000"))) return false;
  auto tx = platform::Transaction::begin(db);
  if (!tx) return false;
  auto commit = db.prepare("INSERT INTO commits(sha, seq, message, author, committed_at) VALUES(?,?,?,?,?)");
  auto job = db.prepare(
      "INSERT INTO jobs(repo, workflow, job, run_id, run_attempt, head_sha, status, conclusion, queued_at, "
      "started_at, completed_at, url, runner_name, source, github_job_id, classification, "
      "classification_category, classification_line) "
      "VALUES(?,?,?,?,1,?,'completed',?,?,?,?,?,'runner','workflow_job',?,?,?,?)");
  auto breakage = db.prepare(
      "INSERT INTO breakages(repo, workflow, job, last_good_sha, first_bad_sha, suspects, culprit_sha, "
      "opened_at, "
      "detection_latency_s, fixed_sha, closed_at, state) VALUES(?,?,?,?,?,1,?,?,600,?,?,?)");
  if (!commit || !job || !breakage) return false;
  const char* repos[] = {"v/accel", "v/vision", "v/serve", "v/extra"};
  std::int64_t id = 0;
  for (int c = 1; c <= commits; ++c) {
    const std::int64_t t = 1'700'000'000 + c * 600;
    commit->reset();
    if (!check(commit->bind(1, sha(c))
                   .bind(2, c)
                   .bind(3, "commit " + std::to_string(c))
                   .bind(4, "dev")
                   .bind(5, t)
                   .run()))
      return false;
    for (int j = 0; j < jobs_per_commit; ++j) {
      ++id;
      const bool failed = (c + j) % 97 == 0;
      job->reset();
      job->bind(1, std::string_view(repos[j % 4]))
          .bind(2, std::string_view("ci"))
          .bind(3, "test (shard " + std::to_string(j) + ")")
          .bind(4, id)
          .bind(5, sha(c))
          .bind(6, std::string_view(failed ? "failure" : "success"))
          .bind(7, t + 60)
          .bind(8, t + 120)
          .bind(9, t + 900)
          .bind(10, "https://github.com/" + std::string(repos[j % 4]) + "/actions/runs/" + std::to_string(id))
          .bind(11, id);
      if (failed)
        job->bind(12, std::string_view("gtest_failure"))
            .bind(13, std::string_view("test"))
            .bind(14, std::string_view("[  FAILED  ] Suite.Case"));
      else
        job->bind_null(12).bind_null(13).bind_null(14);
      if (!check(job->run())) return false;
    }
  }
  for (int b = 1; b <= 500; ++b) {
    const int c = b * (commits / 510) + 2;
    const bool open = b % 20 == 0;
    breakage->reset();
    breakage->bind(1, std::string_view(repos[b % 4]))
        .bind(2, std::string_view("ci"))
        .bind(3, "test (shard " + std::to_string(b % 100) + ")")
        .bind(4, sha(c - 1))
        .bind(5, sha(c))
        .bind(6, sha(c))
        .bind(7, 1'700'000'000 + c * 600 + 900);
    if (open)
      breakage->bind_null(8).bind_null(9).bind(10, std::string_view("open"));
    else
      breakage->bind(8, sha(c + 3))
          .bind(9, 1'700'000'000 + c * 600 + 3000)
          .bind(10, std::string_view("closed"));
    if (!check(breakage->run())) return false;
  }
  return check(tx->commit()) && check(db.execute("ANALYZE"));
}

}  // namespace

int main(int argc, char** argv) {
  int commits = 10000, requests = 200;
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--commits") commits = std::stoi(argv[++i]);
    if (arg == "--requests") requests = std::stoi(argv[++i]);
  }
  const fs::path dir = fs::temp_directory_path() / ("relforge-relay-query-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ci_relay::RelayConfig config;
  config.upstream = "up/runtime";
  config.webhook_secret = "s";
  config.fetch_logs = ci_relay::FetchLogs::no;
  for (const char* r : {"v/accel", "v/vision", "v/serve", "v/extra"})
    config.downstream.push_back({r, ci_relay::Tier::l2, "", "t", "c"});
  auto relay = ci_relay::Relay::open(config, dir / "relay.db");
  if (!relay) {
    std::cerr << relay.error().describe() << '\n';
    return 1;
  }
  const auto seeding = std::chrono::steady_clock::now();
  if (!seed(relay->db(), commits, 100)) return 1;
  std::cout << "relay queries: " << commits * 100 << " job rows, " << commits
            << " commits, 500 breakages (25 open), "
            << "seeded in " << bench::ms_since(seeding) / 1000 << " s\n";
  bool pass = true;
  {
    ci_relay::RelayService service(*relay, [] { return std::int64_t{1'700'000'000 + 10000 * 600}; });
    platform::HttpServer server;
    service.install(server);
    auto port = server.bind("127.0.0.1", 0);
    if (!port) return 1;
    std::thread serving([&] { (void)server.serve(); });
    bench::KeepAliveClient client(*port);
    for (const std::string path : {"/api/grid?limit=50", "/api/breakages?open=1"}) {
      const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
      std::vector<double> latencies;
      std::string body;
      double cpu_start = 0;
      for (int i = 0; i < requests + 5; ++i) {
        if (i == 5) cpu_start = bench::process_cpu_seconds();
        const auto start = std::chrono::steady_clock::now();
        const int status = client.exchange(request, body);
        if (i >= 5) latencies.push_back(bench::ms_since(start));  // the first few warm the caches
        if (status != 200) {
          std::cerr << path << ": HTTP " << status << ": " << body.substr(0, 200) << '\n';
          pass = false;
          break;
        }
      }
      const double p99 = bench::percentile(latencies, 99);
      const double cpu_ms =
          (bench::process_cpu_seconds() - cpu_start) * 1000 / static_cast<double>(latencies.size());
      bench::record({{"name", "relay GET " + path + " p99"},
                     {"input", std::to_string(commits * 100) + " job rows over " + std::to_string(commits) +
                                   " commits, " + std::to_string(latencies.size()) + " keep-alive requests"},
                     {"figure", {{"value", p99}, {"unit", "ms"}}},
                     {"target", bench::target("figure", "<", 50, "p99 < 50 ms")},
                     {"notes", "p50 " + bench::fixed(bench::percentile(latencies, 50)) + " ms, " +
                                   bench::fixed(cpu_ms) + " ms CPU per request, " +
                                   std::to_string(body.size()) + " bytes"}});
      pass = pass && p99 < 50;
    }
    server.stop();
    serving.join();
  }
  fs::remove_all(dir);
  return pass ? 0 : 1;
}
