#include "ci_relay/service.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "ci_relay/dashboard_page.hpp"
#include "ci_relay/hmac.hpp"
#include "ci_relay/intake_scan.hpp"
#include "ci_relay/json_fields.hpp"
#include "ci_relay/pr_comment.hpp"
#include "ci_relay/query.hpp"
#include "platform/http_client.hpp"

namespace relforge::ci_relay {
namespace {

// GitHub's answers to the calls the relay makes are small JSON documents.
constexpr std::size_t k_max_api_answer_bytes = std::size_t{1} << 20;

using nlohmann::json;
using platform::HttpRequest;
using platform::HttpResponse;

HttpResponse answer(int status, const std::string& state, const std::string& message = "") {
  json body = {{"status", state}};
  if (!message.empty()) body["message"] = message;
  return HttpResponse::json(status, dump_json(body) + "\n");
}

std::optional<std::int64_t> to_int(const std::string& text) {
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

RelayService::RelayService(Relay& relay, Clock clock)
    : m_relay(&relay), m_config(relay.config()), m_clock(std::move(clock)) {
  {
    platform::MutexLock lock(m_db_mutex);
    // A checkpoint inside a commit held the database lock for tens of milliseconds, which every
    // waiting delivery saw as latency. Without the thread (it could not open), SQLite checkpoints
    // inside commits as before.
    if (auto started = platform::WalCheckpointer::start(m_relay->db()); started)
      m_checkpointer = std::move(*started);
    // Without it (the log could not be opened) the commits fsync as before.
    if (auto opened = platform::WalSync::open(m_relay->db()); opened) m_wal_sync = std::move(*opened);
  }
  m_committer = std::thread([this] { commit_loop(); });
}

RelayService::~RelayService() {
  stop_worker();
  {
    platform::MutexLock lock(m_intake_mutex);
    m_intake_stop = true;
  }
  m_intake_ready.notify_all();
  m_committer.join();
  platform::MutexLock lock(m_db_mutex);
  m_checkpointer.reset();
}

Intake RelayService::store(Delivery delivery) {
  PendingIntake pending{std::move(delivery), std::nullopt, {}};
  pending.scan = scan_delivery(pending.delivery.event, pending.delivery.body);
  auto answer = pending.answer.get_future();
  {
    platform::MutexLock lock(m_intake_mutex);
    m_intake_queue.push_back(&pending);
  }
  m_intake_ready.notify_one();
  return answer.get();
}

void RelayService::commit_loop() {
  for (;;) {
    std::vector<PendingIntake*> batch;
    {
      platform::MutexLock lock(m_intake_mutex);
      while (!m_intake_stop && m_intake_queue.empty()) m_intake_ready.wait(m_intake_mutex);
      if (m_intake_queue.empty()) return;  // stopping, and nobody is waiting
      while (!m_intake_queue.empty() && batch.size() < k_max_intake_batch) {
        batch.push_back(m_intake_queue.front());
        m_intake_queue.pop_front();
      }
    }
    // Every request that arrived while the previous commit ran shares this transaction's fsync.
    std::vector<Delivery> deliveries;
    std::vector<std::optional<IntakeScan>> scans;
    deliveries.reserve(batch.size());
    scans.reserve(batch.size());
    for (auto* p : batch) {
      deliveries.push_back(std::move(p->delivery));
      scans.push_back(std::move(p->scan));
    }
    std::vector<Intake> answers;
    // The fsync happens after the lock is released, so the normaliser and the next batch's
    // statements run meanwhile; nobody is answered before it returns.
    const auto sync = m_wal_sync ? CommitSync::by_caller : CommitSync::in_commit;
    if (!m_log_sync_failure.empty()) {
      answers.assign(batch.size(), {IntakeOutcome::unavailable, m_log_sync_failure});
    } else {
      {
        ++m_intake_waiting;
        platform::MutexLock lock(m_db_mutex);
        --m_intake_waiting;
        answers = m_relay->intake_batch(deliveries, std::move(scans), sync);
      }
      if (sync == CommitSync::by_caller) {
        if (auto durable = m_wal_sync->sync(); !durable) {
          for (auto& answer : answers) answer = {IntakeOutcome::unavailable, durable.error().describe()};
          // After a failed fsync the kernel may drop the unwritten pages and report the next fsync
          // as a success: a later sync proves nothing about what the log held, so nothing more
          // is acknowledged by this process.
          m_log_sync_failure = "the database log could not be synced earlier (" + durable.error().describe() +
                               "); the relay acknowledges nothing until it is restarted on a healthy disk";
        }
      }
    }
    bool stored = false;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      stored = stored || answers[i].outcome == IntakeOutcome::stored;
      batch[i]->answer.set_value(std::move(answers[i]));
    }
    if (stored) wake_worker();  // once per committed batch, not per delivery
  }
}

HttpResponse RelayService::webhook(const HttpRequest& request) {
  const auto event = request.header("x-github-event");
  const auto delivery = request.header("x-github-delivery");
  const auto signature = request.header("x-hub-signature-256");
  if (!signature)
    return answer(400, "error", "missing X-Hub-Signature-256: configure the webhook secret on GitHub");
  if (!event || !delivery || delivery->empty()) {
    return answer(400, "error", "missing X-GitHub-Event or X-GitHub-Delivery header");
  }
  if (!is_header_token(*event) || !is_header_token(*delivery)) {
    return answer(400, "error",
                  "X-GitHub-Event and X-GitHub-Delivery must be printable ASCII, as GitHub sends them");
  }
  if (!signature_matches(m_config.webhook_secret, request.body, *signature)) {
    return answer(401, "error", "X-Hub-Signature-256 does not match the body: check the webhook secret");
  }
  const Intake intake = store({*event, *delivery, request.body, m_clock()});
  switch (intake.outcome) {
    case IntakeOutcome::stored:
      return HttpResponse::json(202, "{\"status\":\"stored\"}\n");  // answer(202, "stored"), prebuilt
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
  const DownstreamRepo* d = repo ? m_config.find(*repo) : nullptr;
  if (d == nullptr || d->callback_secret.empty() || !signature ||
      !signature_matches(d->callback_secret, request.body, *signature)) {
    return answer(
        401, "error",
        "X-Relforge-Repository / X-Relforge-Signature-256 missing or not valid for a configured repository");
  }
  const std::int64_t now = m_clock();
  {
    platform::MutexLock lock(m_rate_mutex);
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
    platform::MutexLock lock(m_db_mutex);
    outcome = m_relay->report_result(d->repo, request.body, now);
  }
  return answer(outcome.http_status, outcome.http_status < 300 ? "accepted" : "error", outcome.message);
}

HttpResponse RelayService::breakages(const HttpRequest& request) {
  BreakageFilter filter;
  const auto open = query_flag(request.query, "open");
  if (!open) return answer(400, "error", open.error().describe());
  filter.open_only = *open ? OpenOnly::yes : OpenOnly::no;
  filter.repo = request.query_value("repo").value_or("");
  platform::MutexLock lock(m_db_mutex);
  auto list = list_breakages(m_relay->db(), filter);
  if (!list) return answer(503, "error", list.error().describe());
  const auto workflow = request.query_value("workflow"), job = request.query_value("job");
  json out = json::array();
  for (const auto& b : *list) {
    if ((workflow && !workflow->empty() && b.workflow != *workflow) ||
        (job && !job->empty() && b.job != *job))
      continue;
    out.push_back(to_json(b));
  }
  return HttpResponse::json(200, dump_json(out) + "\n");
}

HttpResponse RelayService::breakage(const HttpRequest& request) {
  const auto id = request.matches.empty() ? std::nullopt : to_int(request.matches[0]);
  if (!id) return answer(400, "error", "breakage id must be a number");
  platform::MutexLock lock(m_db_mutex);
  auto b = show_breakage(m_relay->db(), *id);
  if (!b)
    return answer(b.error().category() == ErrorCategory::not_found ? 404 : 503, "error",
                  b.error().describe());
  return HttpResponse::json(200, dump_json(to_json(*b)) + "\n");
}

HttpResponse RelayService::grid(const HttpRequest& request) {
  const auto limit = to_int(request.query_value("limit").value_or("50"));
  if (!limit || *limit < 1 || *limit > 1000) return answer(400, "error", "limit must be between 1 and 1000");
  // The dashboard's filter names: repo, workflow, job.
  const GridQuery query{request.query_value("repo").value_or(""),
                        request.query_value("workflow").value_or(""), request.query_value("job").value_or(""),
                        0, static_cast<int>(*limit)};
  platform::MutexLock lock(m_db_mutex);
  auto g = build_grid(m_relay->db(), m_config, query);
  if (!g) return answer(503, "error", g.error().describe());
  return HttpResponse::json(200, dump_json(to_json(*g)) + "\n");
}

HttpResponse RelayService::health(const HttpRequest& request) {
  auto filter = parse_dashboard_filter(request.query);
  if (!filter) return answer(400, "error", filter.error().describe());
  const std::int64_t now = filter->now.value_or(m_dashboard_now.value_or(m_clock()));
  platform::MutexLock lock(m_db_mutex);
  auto h = repo_health(m_relay->db(), m_config, now);
  if (!h) return answer(503, "error", h.error().describe());
  json out = json::array();
  for (const auto& r : *h) out.push_back(to_json(r));
  return HttpResponse::json(200, dump_json(out) + "\n");
}

HttpResponse RelayService::metrics(const HttpRequest&) {
  platform::MutexLock lock(m_db_mutex);
  auto text = prometheus_metrics(m_relay->db(), m_config, m_clock());
  if (!text) return answer(503, "error", text.error().describe());
  if (m_checkpointer) {
    *text +=
        "# HELP relforge_relay_wal_checkpoints_total Checkpoints of the write-ahead log, taken off the "
        "commit path.\n# TYPE relforge_relay_wal_checkpoints_total "
        "counter\nrelforge_relay_wal_checkpoints_total " +
        std::to_string(m_checkpointer->checkpoints()) +
        "\n# HELP relforge_relay_wal_checkpoint_failing 1 while the last checkpoint failed (the log grows "
        "until one succeeds).\n# TYPE relforge_relay_wal_checkpoint_failing gauge\n"
        "relforge_relay_wal_checkpoint_failing " +
        (m_checkpointer->last_error().empty() ? "0" : "1") + "\n";
  }
  HttpResponse response = HttpResponse::text(200, *text);
  response.content_type = "text/plain; version=0.0.4; charset=utf-8";
  return response;
}

HttpResponse RelayService::dashboard(const HttpRequest& request) {
  auto filter = parse_dashboard_filter(request.query);
  if (!filter) return HttpResponse::text(400, filter.error().describe() + "\n");
  const std::int64_t now = filter->now.value_or(m_dashboard_now.value_or(m_clock()));
  Result<DashboardView> view = DashboardView{};
  {
    platform::MutexLock lock(m_db_mutex);
    view = build_dashboard(m_relay->db(), m_config, *filter, now);
  }
  if (!view) return answer(503, "error", view.error().describe());
  HttpResponse response = HttpResponse::text(200, render_dashboard(*view, m_config, DashboardMode::live));
  response.content_type = "text/html; charset=utf-8";
  response.headers.emplace_back("Content-Security-Policy", dashboard_csp());
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return response;
}

// The page's data and its rendered sections, for the same query parameters as the page.
HttpResponse RelayService::dashboard_api(const HttpRequest& request) {
  auto filter = parse_dashboard_filter(request.query);
  if (!filter) return answer(400, "error", filter.error().describe());
  const std::int64_t now = filter->now.value_or(m_dashboard_now.value_or(m_clock()));
  Result<DashboardView> view = DashboardView{};
  {
    platform::MutexLock lock(m_db_mutex);
    view = build_dashboard(m_relay->db(), m_config, *filter, now);
  }
  if (!view) return answer(503, "error", view.error().describe());
  HttpResponse response = HttpResponse::json(200, dump_json(dashboard_document(*view, m_config)) + "\n");
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

HttpResponse RelayService::jobs(const HttpRequest& request) {
  JobFilter filter;
  filter.repo = request.query_value("repo").value_or("");
  filter.sha = request.query_value("sha").value_or("");
  const auto failed = query_flag(request.query, "failed");
  if (!failed) return answer(400, "error", failed.error().describe());
  filter.failed_only = *failed ? FailedOnly::yes : FailedOnly::no;
  const auto limit = to_int(request.query_value("limit").value_or("100"));
  if (!limit || *limit < 1 || *limit > 10000)
    return answer(400, "error", "limit must be between 1 and 10000");
  filter.limit = static_cast<int>(*limit);
  platform::MutexLock lock(m_db_mutex);
  auto list = list_jobs(m_relay->db(), filter);
  if (!list) return answer(503, "error", list.error().describe());
  json out = json::array();
  for (const auto& j : *list) out.push_back(to_json(j));
  return HttpResponse::json(200, dump_json(out) + "\n");
}

HttpResponse RelayService::pr_comment(const HttpRequest& request) {
  const auto number = request.matches.empty() ? std::nullopt : to_int(request.matches[0]);
  if (!number) return answer(400, "error", "pull request number must be a number");
  platform::MutexLock lock(m_db_mutex);
  auto report = pr_report(m_relay->db(), *number, &m_relay->config());
  if (!report) {
    const auto category = report.error().category();
    return answer(
        category == ErrorCategory::not_found || category == ErrorCategory::nothing_selected ? 404 : 503,
        "error", report.error().describe());
  }
  HttpResponse response = HttpResponse::text(200, report->markdown);
  response.content_type = "text/markdown; charset=utf-8";
  return response;
}

void RelayService::install(platform::HttpServer& server) {
  server.set_max_body_bytes(m_config.max_body_bytes);
  // A webhook holds its thread until its group commit is durable: more threads, more deliveries per commit.
  server.set_threads(k_server_threads);
  server.route("POST", "/webhook", [this](const HttpRequest& r) { return webhook(r); });
  server.route("POST", "/api/results", [this](const HttpRequest& r) { return results(r); });
  server.route("GET", "/api/breakages", [this](const HttpRequest& r) { return breakages(r); });
  server.route("GET", "/api/breakages/([0-9]+)", [this](const HttpRequest& r) { return breakage(r); });
  server.route("GET", "/api/grid", [this](const HttpRequest& r) { return grid(r); });
  server.route("GET", "/api/health", [this](const HttpRequest& r) { return health(r); });
  server.route("GET", "/api/dashboard", [this](const HttpRequest& r) { return dashboard_api(r); });
  server.route("GET", "/api/jobs", [this](const HttpRequest& r) { return jobs(r); });
  server.route("GET", "/api/prs/([0-9]+)/comment", [this](const HttpRequest& r) { return pr_comment(r); });
  server.route("GET", "/metrics", [this](const HttpRequest& r) { return metrics(r); });
  server.route("GET", "/", [this](const HttpRequest& r) { return dashboard(r); });
}

Status RelayService::background_pass(const Sender& send, const LogFetcher& fetch) {
  // Normalise in slices so webhook commits waiting on the database lock are not starved; the
  // payloads are parsed between the two holds of the lock, in parallel with intake.
  for (;;) {
    Result<PendingBatch> batch = PendingBatch{};
    {
      platform::MutexLock lock(m_db_mutex);
      batch = m_relay->fetch_pending(k_normalise_slice);
    }
    if (!batch) return tl::unexpected(batch.error());
    if (batch->rows.empty()) break;
    Relay::prepare_pending(*batch);
    // std::mutex is not fair: let a waiting intake commit in before this slice.
    while (m_intake_waiting.load() > 0) std::this_thread::yield();
    Result<int> n = 0;
    {
      platform::MutexLock lock(m_db_mutex);
      n = m_relay->apply_pending(*batch);
    }
    if (!n) return tl::unexpected(n.error());
    if (batch->rows.size() < static_cast<std::size_t>(k_normalise_slice)) break;
  }
  std::vector<std::pair<std::int64_t, OutboundCall>> due;
  std::vector<LogRequest> logs;
  {
    platform::MutexLock lock(m_db_mutex);
    // Zombies are hours old: a sweep a minute is plenty (each sweep reads the in-progress jobs).
    if (m_clock() - m_last_sweep >= 60) {
      if (auto n = m_relay->sweep_zombies(m_clock()); !n) return tl::unexpected(n.error());
      m_last_sweep = m_clock();
    }
    auto calls = m_relay->due_outbox(m_clock(), 50);
    if (!calls) return tl::unexpected(calls.error());
    due = std::move(*calls);
    if (fetch) {
      auto wanted = m_relay->due_log_fetches(m_clock(), 20);
      if (!wanted) return tl::unexpected(wanted.error());
      logs = std::move(*wanted);
    }
  }
  // Network calls happen without the database lock so intake never waits on GitHub.
  for (const auto& [id, call] : due) {
    const OutboundAnswer result = send(call);
    platform::MutexLock lock(m_db_mutex);
    if (auto ok = m_relay->record_outbox_answer(id, result, m_clock()); !ok) return ok;
  }
  for (const auto& request : logs) {
    const FetchedLog log = fetch(request);
    platform::MutexLock lock(m_db_mutex);
    if (auto ok = m_relay->record_log(request, log, m_clock()); !ok) return ok;
  }
  return {};
}

void RelayService::wake_worker() {
  {
    platform::MutexLock lock(m_wake_mutex);
    if (m_work) return;  // already signalled: the next pass sees this batch too
    m_work = true;
  }
  m_wake.notify_one();
}

void RelayService::start_worker(Sender send, LogFetcher fetch) {
  m_worker =
      std::thread([this, send = std::move(send), fetch = std::move(fetch)] { worker_loop(send, fetch); });
}

void RelayService::worker_loop(const Sender& send, const LogFetcher& fetch) {
  using std::chrono::steady_clock;
  for (;;) {
    {
      platform::MutexLock lock(m_wake_mutex);
      const auto tick = steady_clock::now() + std::chrono::milliseconds(200);
      while (!m_stop && !m_work && m_wake.wait_until(m_wake_mutex, tick)) {
      }
      if (m_stop) return;
      // Under a burst, let deliveries gather so one pass (one transaction, one fsync) normalises
      // many instead of one pass per intake commit competing with intake for the database.
      if (m_work) {
        const auto gathered = steady_clock::now() + k_normalise_gather;
        while (!m_stop && m_wake.wait_until(m_wake_mutex, gathered)) {
        }
      }
      if (m_stop) return;
      m_work = false;
    }
    (void)background_pass(send, fetch);  // failures stay in the database (pending rows, retries)
  }
}

void RelayService::stop_worker() {
  {
    platform::MutexLock lock(m_wake_mutex);
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
    request.max_body_bytes = k_max_api_answer_bytes;
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

LogFetcher github_log_fetcher(std::size_t max_log_bytes) {
  return [max_log_bytes](const LogRequest& log) {
    const auto failed = [](const Error& error) {
      return FetchedLog{0, "", error.describe() + " (a longer log needs a larger max_log_bytes in [relay])"};
    };
    platform::HttpClientRequest request;
    request.url = log.url;
    request.timeout = std::chrono::seconds(120);
    request.max_body_bytes = max_log_bytes;
    request.headers = {{"Accept", "application/vnd.github+json"},
                       {"X-GitHub-Api-Version", "2022-11-28"},
                       {"User-Agent", "relforge-relay"}};
    if (!log.token.empty()) request.headers.emplace_back("Authorization", "Bearer " + log.token);
    auto response = platform::http_request(request);
    if (!response) return failed(response.error());
    if (response->status >= 300 && response->status < 400) {
      const auto location = response->headers.find("location");
      if (location == response->headers.end())
        return FetchedLog{response->status, "", "redirect without a Location header"};
      platform::HttpClientRequest follow;
      follow.url = location->second;
      follow.timeout = request.timeout;
      follow.max_body_bytes = max_log_bytes;
      follow.headers = {{"User-Agent", "relforge-relay"}};
      response = platform::http_request(follow);
      if (!response) return failed(response.error());
    }
    if (response->status >= 300) return FetchedLog{response->status, "", response->body.substr(0, 300)};
    return FetchedLog{response->status, std::move(response->body), ""};
  };
}

}  // namespace relforge::ci_relay
