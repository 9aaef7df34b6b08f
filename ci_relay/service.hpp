#pragma once
// The relay's HTTP face: webhook and callback intake (group commit: concurrent deliveries share one
// fsync'd transaction before each is acknowledged), the read API and dashboard, and a background
// worker that normalises stored deliveries, fetches and classifies failed jobs' logs, sweeps
// zombies and drains the outbox. Handlers are plain functions of a request (testable without sockets).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

#include "ci_relay/relay.hpp"
#include "platform/http_server.hpp"

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
  platform::HttpResponse jobs(const platform::HttpRequest& request);
  platform::HttpResponse pr_comment(const platform::HttpRequest& request);

  // Registers every route and the body limit on `server`.
  void install(platform::HttpServer& server);

  // One pass of background work: normalise pending deliveries, sweep zombies, send due outbox,
  // fetch and classify due logs (when `fetch` is set).
  Status background_pass(const Sender& send, const LogFetcher& fetch = {});
  void start_worker(Sender send,
                    LogFetcher fetch = {});  // every 200 ms, and 50 ms after deliveries are stored
  void stop_worker();

private:
  struct PendingIntake {
    Delivery delivery;
    std::optional<IntakeScan> scan;  // done on the request's thread, not under the database lock
    std::promise<Intake> answer;
  };
  Intake store(Delivery delivery);  // queues for the committer and waits for the durable answer
  void commit_loop();
  void wake_worker();

  std::mutex m_intake_mutex;
  std::condition_variable m_intake_ready;
  std::deque<PendingIntake*> m_intake_queue;
  bool m_intake_stop = false;
  std::thread m_committer;
  Relay& m_relay;
  Clock m_clock;
  std::mutex m_db_mutex;                 // one connection; requests and the worker take turns
  std::atomic<int> m_intake_waiting{0};  // intake commits waiting for m_db_mutex
  std::mutex m_rate_mutex;
  std::map<std::string, std::pair<std::int64_t, int>> m_rate;  // repo → (minute, calls)
  std::mutex m_wake_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  bool m_work = false;
  std::int64_t m_last_sweep = std::numeric_limits<std::int64_t>::min() / 2;
  std::thread m_worker;
};

// Sends outbox calls to the GitHub REST API (platform HTTP client, bearer token, 30 s timeout).
Sender github_sender();
// Fetches a job's log: GET with the bearer token, then the redirect GitHub answers with (without
// the token: the blob URL is pre-signed).
LogFetcher github_log_fetcher();

constexpr int k_callbacks_per_minute = 100;
constexpr std::size_t k_max_intake_batch = 512;
constexpr std::size_t k_server_threads = 64;
// How long the worker lets stored deliveries gather before a normalisation pass.
constexpr std::chrono::milliseconds k_normalise_gather{50};
// Deliveries normalised per hold of the database lock (and per transaction): small enough that a
// waiting intake commit is delayed by a few milliseconds, not by a whole backlog.
constexpr int k_normalise_slice = 64;

}  // namespace relforge::ci_relay
