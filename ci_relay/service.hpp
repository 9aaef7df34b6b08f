#pragma once
// The relay's HTTP face: webhook and callback intake (group commit: concurrent deliveries share one
// fsync'd transaction before each is acknowledged), the read API and dashboard, and a background
// worker that normalises stored deliveries, fetches and classifies failed jobs' logs, sweeps
// zombies and drains the outbox. Handlers are plain functions of a request (testable without sockets).
// Threads: the server's request threads, one committer (intake batches), one worker, one WAL
// checkpointer (its own connection); every use of the Relay holds m_db_mutex. Which lock guards
// what is declared below and checked by clang.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <optional>
#include <thread>

#include "ci_relay/relay.hpp"
#include "platform/http_server.hpp"
#include "platform/sync.hpp"
#include "platform/wal_checkpointer.hpp"
#include "platform/wal_sync.hpp"

namespace relforge::ci_relay {

using Clock = std::function<std::int64_t()>;  // Unix seconds

class RelayService {
public:
  RelayService(Relay& relay, Clock clock);
  ~RelayService();
  RelayService(const RelayService&) = delete;
  RelayService& operator=(const RelayService&) = delete;

  platform::HttpResponse webhook(const platform::HttpRequest& request);
  platform::HttpResponse results(const platform::HttpRequest& request);
  platform::HttpResponse breakages(const platform::HttpRequest& request);
  platform::HttpResponse breakage(const platform::HttpRequest& request);
  platform::HttpResponse grid(const platform::HttpRequest& request);
  platform::HttpResponse health(const platform::HttpRequest& request);
  platform::HttpResponse metrics(const platform::HttpRequest& request);
  platform::HttpResponse dashboard(const platform::HttpRequest& request);
  platform::HttpResponse dashboard_api(const platform::HttpRequest& request);
  // Health, ages and latencies on the dashboard and /api/health as of `now` instead of the clock
  // (replays, tests); `?now=` overrides it per request. Call before install().
  void pin_dashboard_clock(std::int64_t now) { m_dashboard_now = now; }
  platform::HttpResponse jobs(const platform::HttpRequest& request);
  platform::HttpResponse pr_comment(const platform::HttpRequest& request);

  // Registers every route and the body limit on `server`.
  void install(platform::HttpServer& server);

  // One pass of background work: normalise pending deliveries, sweep zombies, send due outbox,
  // fetch and classify due logs (when `fetch` is set).
  Status background_pass(const Sender& send, const LogFetcher& fetch = {}) EXCLUDES(m_db_mutex);
  void start_worker(Sender send,
                    LogFetcher fetch = {});  // every 200 ms, and 50 ms after deliveries are stored
  void stop_worker() EXCLUDES(m_wake_mutex);

private:
  struct PendingIntake {
    Delivery delivery;
    std::optional<IntakeScan> scan;  // done on the request's thread, not under the database lock
    std::promise<Intake> answer;
  };
  Intake store(Delivery delivery) EXCLUDES(m_intake_mutex, m_db_mutex);  // waits for the durable answer
  void commit_loop() EXCLUDES(m_intake_mutex, m_db_mutex);
  void wake_worker() EXCLUDES(m_wake_mutex);
  void worker_loop(const Sender& send, const LogFetcher& fetch) EXCLUDES(m_wake_mutex, m_db_mutex);

  // Request threads queue deliveries; the committer takes them in batches.
  platform::Mutex m_intake_mutex;
  platform::CondVar m_intake_ready;
  std::deque<PendingIntake*> m_intake_queue GUARDED_BY(m_intake_mutex);
  bool m_intake_stop GUARDED_BY(m_intake_mutex) = false;
  std::thread m_committer;
  // One connection: request threads, the committer and the worker take turns.
  platform::Mutex m_db_mutex;
  Relay* const m_relay PT_GUARDED_BY(m_db_mutex);
  // Copies the log into the database file off the commit path (nullptr: in-memory database).
  std::unique_ptr<platform::WalCheckpointer> m_checkpointer GUARDED_BY(m_db_mutex);
  // The committer syncs the log after releasing m_db_mutex, then answers (nullptr: each intake
  // commit fsyncs inside the lock). Set before the committer starts; used by it alone.
  std::unique_ptr<platform::WalSync> m_wal_sync;
  std::string m_log_sync_failure;  // set by the committer when a sync failed: 503 from then on
  std::int64_t m_last_sweep GUARDED_BY(m_db_mutex) = std::numeric_limits<std::int64_t>::min() / 2;
  const RelayConfig& m_config;  // fixed once the relay is open: read without the lock
  Clock m_clock;
  // The dashboard's pinned `now`: set before serving, read-only after.
  std::optional<std::int64_t> m_dashboard_now;
  std::atomic<int> m_intake_waiting{0};  // intake commits waiting for m_db_mutex
  platform::Mutex m_rate_mutex;
  std::map<std::string, std::pair<std::int64_t, int>> m_rate
      GUARDED_BY(m_rate_mutex);  // repo → (minute, calls)
  // The committer wakes the worker; stop_worker stops it.
  platform::Mutex m_wake_mutex;
  platform::CondVar m_wake;
  bool m_stop GUARDED_BY(m_wake_mutex) = false;
  bool m_work GUARDED_BY(m_wake_mutex) = false;
  std::thread m_worker;
};

// Sends outbox calls to the GitHub REST API (platform HTTP client, bearer token, 30 s timeout).
Sender github_sender();
// Fetches a job's log: GET with the bearer token, then the redirect GitHub answers with (without
// the token: the blob URL is pre-signed). A log over `max_log_bytes` is a failed fetch naming the
// limit; the transfer stops when it passes it.
LogFetcher github_log_fetcher(std::size_t max_log_bytes = RelayConfig{}.max_log_bytes);

constexpr int k_callbacks_per_minute = 100;
constexpr std::size_t k_max_intake_batch = 512;
constexpr std::size_t k_server_threads = 64;
// How long the worker lets stored deliveries gather before a normalisation pass.
constexpr std::chrono::milliseconds k_normalise_gather{50};
// Deliveries normalised per hold of the database lock (and per transaction): small enough that a
// waiting intake commit is delayed by a few milliseconds, not by a whole backlog.
constexpr int k_normalise_slice = 64;

}  // namespace relforge::ci_relay
