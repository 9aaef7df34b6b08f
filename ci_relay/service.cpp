#include "ci_relay/service.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "ci_relay/hmac.hpp"
#include "ci_relay/query.hpp"
#include "platform/http_client.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;
using platform::HttpRequest;
using platform::HttpResponse;

HttpResponse answer(int status, const std::string& state, const std::string& message = "") {
  json body = {{"status", state}};
  if (!message.empty()) body["message"] = message;
  return HttpResponse::json(status, body.dump() + "\n");
}

std::optional<std::int64_t> to_int(const std::string& text) {
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

HttpResponse RelayService::webhook(const HttpRequest& request) {
  const auto event = request.header("x-github-event");
  const auto delivery = request.header("x-github-delivery");
  const auto signature = request.header("x-hub-signature-256");
  if (!signature)
    return answer(400, "error", "missing X-Hub-Signature-256: configure the webhook secret on GitHub");
  if (!event || !delivery || delivery->empty()) {
    return answer(400, "error", "missing X-GitHub-Event or X-GitHub-Delivery header");
  }
  if (!signature_matches(m_relay.config().webhook_secret, request.body, *signature)) {
    return answer(401, "error", "X-Hub-Signature-256 does not match the body: check the webhook secret");
  }
  Intake intake;
  {
    std::lock_guard lock(m_db_mutex);
    intake = m_relay.intake({*event, *delivery, request.body, m_clock()});
  }
  switch (intake.outcome) {
    case IntakeOutcome::stored: {
      {
        std::lock_guard lock(m_wake_mutex);
        m_work = true;
      }
      m_wake.notify_one();
      return answer(202, "stored");
    }
    case IntakeOutcome::duplicate:
      return answer(200, "duplicate", intake.message);
    case IntakeOutcome::ignored:
      return answer(202, "ignored", intake.message);
    case IntakeOutcome::rejected:
      return answer(422, "rejected", intake.message);
    case IntakeOutcome::malformed:
      return answer(400, "malformed", intake.message);
    case IntakeOutcome::unavailable:
      break;
  }
  return answer(503, "unavailable",
                "the delivery could not be stored; nothing was acknowledged: " + intake.message);
}

HttpResponse RelayService::results(const HttpRequest& request) {
  const auto repo = request.header("x-relforge-repository");
  const auto signature = request.header("x-relforge-signature-256");
  const DownstreamRepo* d = repo ? m_relay.config().find(*repo) : nullptr;
  if (d == nullptr || d->callback_secret.empty() || !signature ||
      !signature_matches(d->callback_secret, request.body, *signature)) {
    return answer(
        401, "error",
        "X-Relforge-Repository / X-Relforge-Signature-256 missing or not valid for a configured repository");
  }
  const std::int64_t now = m_clock();
  {
    std::lock_guard lock(m_rate_mutex);
    auto& [minute, calls] = m_rate[d->repo];
    if (minute != now / 60) {
      minute = now / 60;
      calls = 0;
    }
    if (++calls > k_callbacks_per_minute) {
      return answer(
          429, "error",
          "more than " + std::to_string(k_callbacks_per_minute) + " results a minute from " + d->repo);
    }
  }
  CallbackOutcome outcome;
  {
    std::lock_guard lock(m_db_mutex);
    outcome = m_relay.report_result(d->repo, request.body, now);
  }
  return answer(outcome.http_status, outcome.http_status < 300 ? "accepted" : "error", outcome.message);
}

HttpResponse RelayService::breakages(const HttpRequest& request) {
  BreakageFilter filter;
  filter.open_only = request.query_value("open").value_or("0") == "1" ? OpenOnly::yes : OpenOnly::no;
  filter.repo = request.query_value("repo").value_or("");
  std::lock_guard lock(m_db_mutex);
  auto list = list_breakages(m_relay.db(), filter);
  if (!list) return answer(503, "error", list.error().describe());
  json out = json::array();
  for (const auto& b : *list) out.push_back(to_json(b));
  return HttpResponse::json(200, out.dump() + "\n");
}

HttpResponse RelayService::breakage(const HttpRequest& request) {
  const auto id = request.matches.empty() ? std::nullopt : to_int(request.matches[0]);
  if (!id) return answer(400, "error", "breakage id must be a number");
  std::lock_guard lock(m_db_mutex);
  auto b = show_breakage(m_relay.db(), *id);
  if (!b)
    return answer(b.error().category() == ErrorCategory::not_found ? 404 : 503, "error",
                  b.error().describe());
  return HttpResponse::json(200, to_json(*b).dump() + "\n");
}

HttpResponse RelayService::grid(const HttpRequest& request) {
  const auto limit = to_int(request.query_value("limit").value_or("50"));
  if (!limit || *limit < 1 || *limit > 1000) return answer(400, "error", "limit must be between 1 and 1000");
  std::lock_guard lock(m_db_mutex);
  auto g = build_grid(m_relay.db(), m_relay.config(), request.query_value("repo").value_or(""),
                      static_cast<int>(*limit));
  if (!g) return answer(503, "error", g.error().describe());
  return HttpResponse::json(200, to_json(*g).dump() + "\n");
}

HttpResponse RelayService::health(const HttpRequest&) {
  std::lock_guard lock(m_db_mutex);
  auto h = repo_health(m_relay.db(), m_relay.config(), m_clock());
  if (!h) return answer(503, "error", h.error().describe());
  json out = json::array();
  for (const auto& r : *h) out.push_back(to_json(r));
  return HttpResponse::json(200, out.dump() + "\n");
}

HttpResponse RelayService::metrics(const HttpRequest&) {
  std::lock_guard lock(m_db_mutex);
  auto text = prometheus_metrics(m_relay.db(), m_relay.config(), m_clock());
  if (!text) return answer(503, "error", text.error().describe());
  HttpResponse response = HttpResponse::text(200, *text);
  response.content_type = "text/plain; version=0.0.4; charset=utf-8";
  return response;
}

HttpResponse RelayService::dashboard(const HttpRequest&) {
  std::lock_guard lock(m_db_mutex);
  auto html = dashboard_html(m_relay.db(), m_relay.config(), m_clock());
  if (!html) return answer(503, "error", html.error().describe());
  HttpResponse response = HttpResponse::text(200, *html);
  response.content_type = "text/html; charset=utf-8";
  return response;
}

void RelayService::install(platform::HttpServer& server) {
  server.set_max_body_bytes(m_relay.config().max_body_bytes);
  server.route("POST", "/webhook", [this](const HttpRequest& r) { return webhook(r); });
  server.route("POST", "/api/results", [this](const HttpRequest& r) { return results(r); });
  server.route("GET", "/api/breakages", [this](const HttpRequest& r) { return breakages(r); });
  server.route("GET", "/api/breakages/([0-9]+)", [this](const HttpRequest& r) { return breakage(r); });
  server.route("GET", "/api/grid", [this](const HttpRequest& r) { return grid(r); });
  server.route("GET", "/api/health", [this](const HttpRequest& r) { return health(r); });
  server.route("GET", "/metrics", [this](const HttpRequest& r) { return metrics(r); });
  server.route("GET", "/", [this](const HttpRequest& r) { return dashboard(r); });
}

Status RelayService::background_pass(const Sender& send) {
  std::vector<std::pair<std::int64_t, OutboundCall>> due;
  {
    std::lock_guard lock(m_db_mutex);
    if (auto n = m_relay.process_pending(); !n) return tl::unexpected(n.error());
    if (auto n = m_relay.sweep_zombies(m_clock()); !n) return tl::unexpected(n.error());
    auto calls = m_relay.due_outbox(m_clock(), 50);
    if (!calls) return tl::unexpected(calls.error());
    due = std::move(*calls);
  }
  // Network calls happen without the database lock so intake never waits on GitHub.
  for (const auto& [id, call] : due) {
    const OutboundAnswer result = send(call);
    std::lock_guard lock(m_db_mutex);
    if (auto ok = m_relay.record_outbox_answer(id, result, m_clock()); !ok) return ok;
  }
  return {};
}

void RelayService::start_worker(Sender send) {
  m_worker = std::thread([this, send = std::move(send)] {
    for (;;) {
      {
        std::unique_lock lock(m_wake_mutex);
        m_wake.wait_for(lock, std::chrono::milliseconds(200), [this] { return m_stop || m_work; });
        if (m_stop) return;
        m_work = false;
      }
      (void)background_pass(send);  // failures stay in the database (pending rows, outbox errors)
    }
  });
}

void RelayService::stop_worker() {
  {
    std::lock_guard lock(m_wake_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_worker.joinable()) m_worker.join();
}

Sender github_sender() {
  return [](const OutboundCall& call) {
    platform::HttpClientRequest request;
    request.method = "POST";
    request.url = call.url;
    request.body = call.body;
    request.timeout = std::chrono::seconds(30);
    request.headers = {{"Accept", "application/vnd.github+json"},
                       {"X-GitHub-Api-Version", "2022-11-28"},
                       {"User-Agent", "relforge-relay"},
                       {"Content-Type", "application/json"}};
    if (!call.token.empty()) request.headers.emplace_back("Authorization", "Bearer " + call.token);
    auto response = platform::http_request(request);
    if (!response) return OutboundAnswer{0, response.error().describe()};
    return OutboundAnswer{response->status, response->status >= 300 ? response->body.substr(0, 300) : ""};
  };
}

}  // namespace relforge::ci_relay
