#pragma once
// The relay's HTTP face: webhook and callback intake, the read API and dashboard, and a background
// worker that normalises stored deliveries, sweeps zombies and drains the outbox. Handlers are
// plain functions of a request so tests can call them without sockets.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "ci_relay/relay.hpp"
#include "platform/http_server.hpp"

namespace relforge::ci_relay {

using Clock = std::function<std::int64_t()>;  // Unix seconds

class RelayService {
public:
  RelayService(Relay& relay, Clock clock) : m_relay(relay), m_clock(std::move(clock)) {}
  ~RelayService() { stop_worker(); }
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

  // Registers every route and the body limit on `server`.
  void install(platform::HttpServer& server);

  // One pass of background work: normalise pending deliveries, sweep zombies, send due outbox.
  Status background_pass(const Sender& send);
  void start_worker(Sender send);  // passes every 200 ms and whenever a delivery is stored
  void stop_worker();

private:
  Relay& m_relay;
  Clock m_clock;
  std::mutex m_db_mutex;  // one connection; requests and the worker take turns
  std::mutex m_rate_mutex;
  std::map<std::string, std::pair<std::int64_t, int>> m_rate;  // repo → (minute, calls)
  std::mutex m_wake_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  bool m_work = false;
  std::thread m_worker;
};

// Sends outbox calls to the GitHub REST API (platform HTTP client, bearer token, 30 s timeout).
Sender github_sender();

constexpr int k_callbacks_per_minute = 100;

}  // namespace relforge::ci_relay
