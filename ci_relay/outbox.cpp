#include "ci_relay/outbox.hpp"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "ci_relay/attribution.hpp"
#include "ci_relay/json_fields.hpp"
#include "core/text.hpp"
#include "platform/sqlite_rows.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

constexpr std::size_t k_client_payload_limit = 65535;
constexpr std::string_view k_job_external_prefix = "relforge-job:";

json essentials(const std::string& event, const json& payload) {
  json out = {{"action", field(payload, "action")},
              {"repository", {{"full_name", text_field(field(payload, "repository"), "full_name")}}},
              {"trimmed", true}};
  if (event == "push") {
    out["ref"] = field(payload, "ref");
    out["before"] = field(payload, "before");
    out["after"] = field(payload, "after");
  } else if (event == "pull_request") {
    const auto& pr = field(payload, "pull_request");
    json labels = json::array();
    if (field(pr, "labels").is_array()) {
      for (const auto& l : field(pr, "labels")) labels.push_back(text_field(l, "name"));
    }
    out["number"] = field(payload, "number");
    out["pull_request"] = {
        {"number", field(pr, "number")},
        {"html_url", field(pr, "html_url")},
        {"head", {{"sha", field(field(pr, "head"), "sha")}, {"ref", field(field(pr, "head"), "ref")}}},
        {"base", {{"sha", field(field(pr, "base"), "sha")}, {"ref", field(field(pr, "base"), "ref")}}},
        {"labels", labels}};
  } else {
    out["payload"] = field(payload, "client_payload");
  }
  return out;
}

bool is_sha(const std::string& text) {
  return text.size() == 40 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

std::string dispatch_body(const std::string& event, const std::string& delivery_id,
                          const std::string& payload) {
  json parsed = core::json_nesting_within(payload, k_max_json_nesting) ? json::parse(payload, nullptr, false)
                                                                       : json(json::value_t::discarded);
  if (parsed.is_discarded()) parsed = json::object();
  json client = {{"event_type", event}, {"delivery_id", delivery_id}, {"payload", parsed}};
  if (dump_json(client).size() > k_client_payload_limit) client["payload"] = essentials(event, parsed);
  return dump_json(json{{"event_type", event}, {"client_payload", client}});
}

Status Outbox::enqueue(const OutboxEntry& entry, std::int64_t now) {
  auto stmt = m_store.cached(
      "INSERT INTO outbox(kind, target_repo, path, body, delivery_id, next_attempt_at, created_at) "
      "VALUES(?,?,?,?,?,?,?)");
  if (!stmt) return tl::unexpected(stmt.error());
  return (*stmt)
      ->bind(1, entry.kind)
      .bind(2, entry.target_repo)
      .bind(3, entry.path)
      .bind(4, entry.body)
      .bind(5, entry.delivery_id)
      .bind(6, now)
      .bind(7, now)
      .run();
}

Status Outbox::enqueue_dispatches(const std::string& event, const std::string& delivery_id,
                                  const std::string& body, std::int64_t now) {
  const RelayConfig& config = m_store.config();
  if (config.downstream.empty()) return {};
  const std::string request = dispatch_body(event, delivery_id, body);
  for (const auto& d : config.downstream) {
    if (auto ok = enqueue({.kind = "dispatch",
                           .target_repo = d.repo,
                           .path = "/repos/" + d.repo + "/dispatches",
                           .body = request,
                           .delivery_id = delivery_id},
                          now);
        !ok) {
      return ok;
    }
  }
  return {};
}

Status Outbox::enqueue_check_run(const JobKey& key, const std::string& sha, std::int64_t now) {
  const auto& [repo, workflow, job] = key;
  const RelayConfig& config = m_store.config();
  const DownstreamRepo* d = config.find(repo);
  if (d == nullptr || (d->tier != Tier::l3 && d->tier != Tier::l4)) return {};
  bool upstream_commit = false, labelled = false;
  {
    auto stmt = m_store.cached("SELECT 1 FROM commits WHERE sha = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    auto row = (*stmt)->bind(1, sha).step();
    if (!row) return tl::unexpected(row.error());
    upstream_commit = *row;
  }
  {
    auto stmt = m_store.cached("SELECT labels FROM pull_requests WHERE head_sha = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    auto read = platform::each_row<std::string>((*stmt)->bind(1, sha), [&](const std::string& labels) {
      upstream_commit = true;
      if (("\n" + labels).find("\nciflow/crcr/" + d->device + "\n") != std::string::npos) labelled = true;
    });
    if (!read) return tl::unexpected(read.error());
  }
  if (!upstream_commit || (d->tier == Tier::l3 && !labelled)) return {};
  std::string status, conclusion;
  std::string url;
  std::int64_t row_id = 0;
  {
    auto stmt = m_store.cached(
        "SELECT status, conclusion, url, id FROM jobs WHERE repo = ? AND workflow = ? AND job = ? AND "
        "head_sha = "
        "? "
        "ORDER BY run_id DESC, run_attempt DESC LIMIT 1");
    if (!stmt) return tl::unexpected(stmt.error());
    auto row = platform::first_row<std::string, std::optional<std::string>, std::string, std::int64_t>(
        (*stmt)->bind(1, repo).bind(2, workflow).bind(3, job).bind(4, sha));
    if (!row) return tl::unexpected(row.error());
    if (!*row) return {};
    status = std::get<0>(**row);
    conclusion = std::get<1>(**row).value_or("");
    url = std::get<2>(**row);
    row_id = std::get<3>(**row);
  }
  // external_id names the job row, so a re-request of this check run finds the job to re-run.
  json body = {{"name", "relforge/" + d->repo + "/" + workflow + "/" + job},
               {"head_sha", sha},
               {"status", status},
               {"external_id", std::string(k_job_external_prefix) + std::to_string(row_id)}};
  if (status == "completed") body["conclusion"] = conclusion;
  if (url.rfind("http", 0) == 0) body["details_url"] = url;
  return enqueue({.kind = "check_run",
                  .target_repo = config.upstream,
                  .path = "/repos/" + config.upstream + "/check-runs",
                  .body = dump_json(body),
                  .delivery_id = ""},
                 now);
}

Status Outbox::enqueue_check_runs(const std::string& repo, const std::string& sha, std::int64_t now) {
  std::vector<std::pair<std::string, std::string>> jobs;
  auto stmt = m_store.cached("SELECT DISTINCT workflow, job FROM jobs WHERE repo = ? AND head_sha = ?");
  if (!stmt) return tl::unexpected(stmt.error());
  auto read = platform::each_row<std::string, std::string>(
      (*stmt)->bind(1, repo).bind(2, sha),
      [&](std::string workflow, std::string job) { jobs.emplace_back(std::move(workflow), std::move(job)); });
  if (!read) return tl::unexpected(read.error());
  for (const auto& [workflow, job] : jobs) {
    if (auto ok = enqueue_check_run({repo, workflow, job}, sha, now); !ok) return ok;
  }
  return {};
}

Result<std::string> Outbox::enqueue_rerun(const std::string& external_id, const std::string& sha,
                                          const std::string& delivery_id, std::int64_t now) {
  if (external_id.rfind(k_job_external_prefix, 0) != 0)
    return std::string("the check run's external_id '" + external_id + "' names no relay job");
  std::int64_t row_id = 0;
  const std::string digits = external_id.substr(k_job_external_prefix.size());
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::string("the check run's external_id '" + external_id + "' names no relay job");
  row_id = std::stoll(digits);
  std::string repo, workflow, job;
  {
    auto stmt = m_store.cached("SELECT repo, workflow, job, head_sha FROM jobs WHERE id = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    auto row =
        platform::first_row<std::string, std::string, std::string, std::string>((*stmt)->bind(1, row_id));
    if (!row) return tl::unexpected(row.error());
    // The job must be the one the check run reported on: an id from elsewhere re-runs nothing.
    if (!*row || std::get<3>(**row) != sha) return std::string("no relay job " + digits + " ran on " + sha);
    std::tie(repo, workflow, job, std::ignore) = **row;
  }
  const DownstreamRepo* d = m_store.config().find(repo);
  if (d == nullptr || (d->tier != Tier::l3 && d->tier != Tier::l4))
    return std::string(repo + " has no check runs (L3/L4 only): nothing to re-run");
  std::int64_t run_id = 0, run_attempt = 0;
  std::optional<std::int64_t> github_job_id;
  {
    auto stmt = m_store.cached(
        "SELECT run_id, run_attempt, github_job_id FROM jobs WHERE repo = ? AND workflow = ? AND job = ? AND "
        "head_sha = ? ORDER BY run_id DESC, run_attempt DESC LIMIT 1");
    if (!stmt) return tl::unexpected(stmt.error());
    auto row = platform::first_row<std::int64_t, std::int64_t, std::optional<std::int64_t>>(
        (*stmt)->bind(1, repo).bind(2, workflow).bind(3, job).bind(4, sha));
    if (!row) return tl::unexpected(row.error());
    if (!*row) return std::string("the job vanished");
    std::tie(run_id, run_attempt, github_job_id) = **row;
  }
  OutboxEntry entry{
      .kind = "rerun", .target_repo = d->repo, .path = "", .body = "{}", .delivery_id = delivery_id};
  if (github_job_id) {
    entry.path = "/repos/" + d->repo + "/actions/jobs/" + std::to_string(*github_job_id) + "/rerun";
  } else {
    entry.path = "/repos/" + d->repo + "/dispatches";
    entry.body = dump_json(json{{"event_type", "relforge-rerun"},
                                {"client_payload",
                                 {{"event_type", "rerun"},
                                  {"delivery_id", delivery_id},
                                  {"payload",
                                   {{"sha", sha},
                                    {"workflow", workflow},
                                    {"job", job},
                                    {"run_id", run_id},
                                    {"run_attempt", run_attempt}}}}}});
  }
  if (auto ok = enqueue(entry, now); !ok) return tl::unexpected(ok.error());
  return std::string();
}

Result<std::vector<std::pair<std::int64_t, OutboundCall>>> Outbox::due(std::int64_t now, int limit) {
  const RelayConfig& config = m_store.config();
  std::vector<std::pair<std::int64_t, OutboundCall>> due;
  auto stmt = m_store.db().prepare(
      "SELECT id, target_repo, path, body FROM outbox WHERE state = 'pending' AND next_attempt_at <= ? "
      "ORDER BY id LIMIT ?");
  if (!stmt) return tl::unexpected(stmt.error());
  stmt->bind(1, now).bind(2, static_cast<std::int64_t>(limit));
  auto read = platform::each_row<std::int64_t, std::string, std::string, std::string>(
      *stmt, [&](std::int64_t id, const std::string& target, const std::string& path, std::string body) {
        const DownstreamRepo* d = config.find(target);
        due.emplace_back(id, OutboundCall{config.api_base + path,
                                          d != nullptr ? d->token : config.upstream_token, std::move(body)});
      });
  if (!read) return tl::unexpected(read.error());
  return due;
}

Status Outbox::record_answer(std::int64_t outbox_id, const OutboundAnswer& answer, std::int64_t now) {
  platform::Database& db = m_store.db();
  const RelayConfig& config = m_store.config();
  auto tx = platform::Transaction::begin(db);
  if (!tx) return tl::unexpected(tx.error());
  if (answer.status >= 200 && answer.status < 300) {
    auto stmt =
        db.prepare("UPDATE outbox SET state = 'sent', sent_at = ?, attempts = attempts + 1 WHERE id = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    if (auto ok = stmt->bind(1, now).bind(2, outbox_id).run(); !ok) return ok;
    auto record = db.prepare(
        "INSERT INTO dispatches(delivery_id, repo, dispatched_at) SELECT delivery_id, target_repo, ? FROM "
        "outbox "
        "WHERE id = ? AND kind = 'dispatch' ON CONFLICT DO NOTHING");
    if (!record) return tl::unexpected(record.error());
    if (auto ok = record->bind(1, now).bind(2, outbox_id).run(); !ok) return ok;
    return tx->commit();
  }
  if (auto ok = record_failed_call(db, config, "outbox", "id", outbox_id, answer.status, answer.error, now);
      !ok)
    return ok;
  return tx->commit();
}

Result<int> Outbox::deliver(std::int64_t now, const Sender& send) {
  auto calls = due(now, 100);
  if (!calls) return tl::unexpected(calls.error());
  int sent = 0;
  for (const auto& [id, call] : *calls) {
    const OutboundAnswer answer = send(call);
    if (auto ok = record_answer(id, answer, now); !ok) return tl::unexpected(ok.error());
    if (answer.status >= 200 && answer.status < 300) ++sent;
  }
  return sent;
}

Result<std::int64_t> Outbox::request_bisect_run(std::int64_t breakage_id, std::int64_t now) {
  platform::Database& db = m_store.db();
  auto stmt = db.prepare(
      "SELECT b.repo, b.workflow, b.job, g.seq, f.seq FROM breakages b JOIN commits g ON g.sha = "
      "b.last_good_sha "
      "JOIN commits f ON f.sha = b.first_bad_sha WHERE b.id = ?");
  if (!stmt) return tl::unexpected(stmt.error());
  auto row = stmt->bind(1, breakage_id).step();
  if (!row) return tl::unexpected(row.error());
  if (!*row)
    return fail(ErrorCategory::not_found,
                "no breakage #" + std::to_string(breakage_id) + " (see `relforge relay breakages`)");
  const std::string repo = stmt->column_text(0), workflow = stmt->column_text(1), job = stmt->column_text(2);
  const Finding finding{stmt->column_int(3), stmt->column_int(4), std::nullopt};
  const auto middle = bisect_midpoint(finding);
  if (!middle)
    return fail(ErrorCategory::nothing_selected,
                "breakage #" + std::to_string(breakage_id) + " already names its culprit");
  if (m_store.config().find(repo) == nullptr) {
    return fail(ErrorCategory::invalid_input, repo + " is not a downstream repository with dispatch");
  }
  auto sha = db.prepare("SELECT sha FROM commits WHERE seq = ?");
  if (!sha) return tl::unexpected(sha.error());
  if (auto r = sha->bind(1, *middle).step(); !r || !*r)
    return fail(ErrorCategory::internal, "bisect commit vanished");
  const std::string target = sha->column_text(0);
  if (!is_sha(target)) return fail(ErrorCategory::internal, "stored commit id '" + target + "' is not a SHA");
  json body = {
      {"event_type", "relforge-bisect"},
      {"client_payload",
       {{"event_type", "bisect"},
        {"delivery_id", "bisect-" + std::to_string(breakage_id)},
        {"payload", {{"sha", target}, {"workflow", workflow}, {"job", job}, {"breakage", breakage_id}}}}}};
  if (auto ok = enqueue({.kind = "dispatch",
                         .target_repo = repo,
                         .path = "/repos/" + repo + "/dispatches",
                         .body = dump_json(body),
                         .delivery_id = "bisect-" + std::to_string(breakage_id) + "-" + target.substr(0, 12)},
                        now);
      !ok) {
    return tl::unexpected(ok.error());
  }
  return db.last_insert_rowid();
}

}  // namespace relforge::ci_relay
