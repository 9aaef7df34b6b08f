// Turns stored deliveries into commits, pull requests, runs and jobs (called inside a transaction).
#include <nlohmann/json.hpp>

#include "ci_relay/job_scan.hpp"
#include "ci_relay/json_fields.hpp"
#include "ci_relay/relay.hpp"
#include "core/text.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

tl::unexpected<Error> bad_payload(const std::string& event, const std::string& what) {
  return fail(ErrorCategory::invalid_input, event + " payload: " + what);
}

std::string job_status(const std::string& github_status) {
  if (github_status == "in_progress") return "in_progress";
  if (github_status == "completed") return "completed";
  return "queued";  // queued, waiting, requested, pending
}

std::optional<std::int64_t> time_field(const json& object, const char* key) {
  return parse_github_time(text_field(object, key));
}

// First-parent walk from `after` when commits carry parents; otherwise GitHub's listed order
// (oldest first), which is the first-parent order for the linear pushes a trunk receives.
std::vector<const json*> upstream_order(const json& payload) {
  const auto& commits = field(payload, "commits");
  std::vector<const json*> listed;
  if (commits.is_array()) {
    for (const auto& c : commits) listed.push_back(&c);
  }
  bool have_parents = !listed.empty();
  for (const auto* c : listed) have_parents = have_parents && field(*c, "parents").is_array();
  if (!have_parents) return listed;
  std::vector<const json*> chain;
  std::string at = text_field(payload, "after");
  const std::string before = text_field(payload, "before");
  while (!at.empty() && at != before) {
    const json* found = nullptr;
    for (const auto* c : listed) {
      if (text_field(*c, "id") == at) found = c;
    }
    if (found == nullptr) break;
    chain.push_back(found);
    const auto& parents = field(*found, "parents");
    at = parents.empty() || !parents[0].is_string() ? std::string() : parents[0].get<std::string>();
  }
  return {chain.rbegin(), chain.rend()};
}

}  // namespace

Status Relay::on_workflow_job(const WorkflowJobFields& job, const std::string& event, std::int64_t now) {
  const auto& run_id = job.run_id;
  const std::string& name = job.name;
  const std::string& sha = job.head_sha;
  if (!run_id || name.empty() || sha.empty()) {
    return bad_payload(event, "workflow_job.run_id, name or head_sha is missing");
  }
  std::string workflow = job.workflow_name;
  if (workflow.empty()) workflow = "workflow-" + std::to_string(*run_id);
  const std::string status = job_status(job.status);
  auto queued = parse_github_time(job.created_at);
  auto started = status == "queued" ? std::nullopt : parse_github_time(job.started_at);
  auto completed = status == "completed" ? parse_github_time(job.completed_at) : std::nullopt;
  const auto& github_id = job.id;
  const auto conclusion = status == "completed" ? job.conclusion : std::nullopt;
  const std::int64_t attempt = job.run_attempt.value_or(1);
  const std::string& repo = job.repo;
  if (auto ok = upsert_job(repo, workflow, name, *run_id, attempt, sha, status, conclusion, queued, started,
                           completed, job.html_url, job.runner_name, "workflow_job", now, github_id);
      !ok) {
    return ok;
  }
  // A failed job's log is fetched later by the worker, never before the webhook is answered.
  if (github_id && m_config.fetch_logs == FetchLogs::yes &&
      (conclusion == "failure" || conclusion == "timed_out")) {
    auto queue = cached(
        "INSERT OR IGNORE INTO log_fetches(job_row, repo, github_job_id, next_attempt_at) "
        "SELECT id, repo, github_job_id, ? FROM jobs WHERE repo = ? AND workflow = ? AND job = ? AND "
        "run_id = ? AND run_attempt = ? AND classification IS NULL");
    if (!queue) return tl::unexpected(queue.error());
    (*queue)->bind(1, now).bind(2, repo).bind(3, workflow).bind(4, name).bind(5, *run_id).bind(6, attempt);
    if (auto ok = (*queue)->run(); !ok) return ok;
  }
  return {};
}

Status Relay::normalise(const PendingDelivery& row) {
  const std::string& event = row.event;
  const std::string& delivery_id = row.delivery_id;
  const std::string& body = row.body;
  const std::int64_t now = row.received_at;
  if (event == "workflow_job") {  // the bulk of the traffic: read by one SAX pass, no document
    if (!row.job) return bad_payload(event, "not JSON");
    return on_workflow_job(*row.job, event, now);  // processed, no note: nothing to settle
  }
  const json& payload = row.payload;  // parsed by prepare_pending, outside the database lock
  if (payload.is_discarded()) return bad_payload(event, "not JSON");
  const std::string repo = text_field(field(payload, "repository"), "full_name");
  std::string note;
  std::string state = "processed";
  if (event == "push") {
    if (auto ok = on_push(delivery_id, body, payload, now, note); !ok) return ok;
    if (!note.empty()) state = "ignored";
  } else if (event == "pull_request") {
    const auto& pr = field(payload, "pull_request");
    const std::string action = text_field(payload, "action");
    if (!m_config.is_upstream(repo)) {
      state = "ignored";
      note = "pull_request from " + repo + " (only upstream pull requests are dispatched)";
    } else {
      auto number = int_field(pr, "number");
      const std::string head = text_field(field(pr, "head"), "sha");
      if (!number || head.empty()) return bad_payload(event, "pull_request.number or head.sha is missing");
      std::string labels;
      if (field(pr, "labels").is_array()) {
        for (const auto& label : field(pr, "labels")) labels += text_field(label, "name") + "\n";
      }
      auto stmt = m_db.prepare(
          "INSERT INTO pull_requests(number, head_sha, base_sha, state, labels, author) VALUES(?,?,?,?,?,?) "
          "ON CONFLICT(number) DO UPDATE SET head_sha = excluded.head_sha, base_sha = excluded.base_sha, "
          "state = excluded.state, labels = excluded.labels, author = excluded.author");
      if (!stmt) return tl::unexpected(stmt.error());
      stmt->bind(1, *number)
          .bind(2, head)
          .bind(3, text_field(field(pr, "base"), "sha"))
          .bind(4, text_field(pr, "state"))
          .bind(5, labels)
          .bind(6, text_field(field(pr, "user"), "login"));
      if (auto ok = stmt->run(); !ok) return ok;
      if (action == "opened" || action == "reopened" || action == "synchronize" || action == "closed") {
        if (auto ok = enqueue_dispatches(event, delivery_id, body, now); !ok) return ok;
      } else {
        note = "pull_request action '" + action + "' is recorded, not dispatched";
      }
    }
  } else if (event == "check_run") {
    const auto& check = field(payload, "check_run");
    auto id = int_field(check, "id");
    const std::string name = text_field(check, "name"), sha = text_field(check, "head_sha");
    if (!id || name.empty() || sha.empty())
      return bad_payload(event, "check_run.id, name or head_sha is missing");
    if (name.rfind("relforge/", 0) == 0) {
      state = "ignored";
      note = "check run created by the relay itself";
    } else {
      std::string app = text_field(field(check, "app"), "slug");
      if (app.empty()) app = "checks";
      const std::string status = job_status(text_field(check, "status"));
      if (auto ok = upsert_job(repo, app, name, *id, 1, sha, status,
                               status == "completed" ? optional_text(check, "conclusion") : std::nullopt,
                               time_field(check, "started_at"), time_field(check, "started_at"),
                               status == "completed" ? time_field(check, "completed_at") : std::nullopt,
                               text_field(check, "html_url"), "", "check_run", now);
          !ok) {
        return ok;
      }
    }
  } else if (event == "workflow_run" || event == "check_suite") {
    const auto& run = field(payload, event.c_str());
    auto id = int_field(run, "id");
    if (!id) return bad_payload(event, event + ".id is missing");
    std::string name =
        event == "workflow_run" ? text_field(run, "name") : text_field(field(run, "app"), "slug");
    auto stmt = m_db.prepare(
        "INSERT INTO runs(repo, kind, run_id, run_attempt, name, head_sha, event, status, conclusion, url) "
        "VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(repo, kind, run_id, run_attempt) DO UPDATE SET "
        "status = CASE WHEN runs.status = 'completed' THEN runs.status ELSE excluded.status END, "
        "conclusion = COALESCE(excluded.conclusion, runs.conclusion)");
    if (!stmt) return tl::unexpected(stmt.error());
    stmt->bind(1, repo)
        .bind(2, event)
        .bind(3, *id)
        .bind(4, int_field(run, "run_attempt").value_or(1))
        .bind(5, name)
        .bind(6, text_field(run, "head_sha"))
        .bind(7, text_field(run, "event"))
        .bind(8, text_field(run, "status"));
    if (auto c = optional_text(run, "conclusion"))
      stmt->bind(9, *c);
    else
      stmt->bind_null(9);
    stmt->bind(10, text_field(run, "html_url"));
    if (auto ok = stmt->run(); !ok) return ok;
  }
  // A plainly processed delivery needs no row of its own: the cursor moving past it says so.
  if (state == "processed" && note.empty()) return {};
  return settle(row.id, state, note);
}

Status Relay::on_push(const std::string& delivery_id, const std::string& body, const json& payload,
                      std::int64_t now, std::string& note) {
  const std::string repo = text_field(field(payload, "repository"), "full_name");
  const std::string ref = text_field(payload, "ref");
  if (!m_config.is_upstream(repo)) {
    note = "push to " + repo + " (only the upstream's pushes order commits)";
    return {};
  }
  if (ref != "refs/heads/" + m_config.branch) {
    note = "push to " + ref + ", not the tracked branch refs/heads/" + m_config.branch;
    return {};
  }
  if (field(payload, "deleted").is_boolean() && field(payload, "deleted").get<bool>()) {
    note = "branch deletion";
    return {};
  }
  std::vector<const json*> order = upstream_order(payload);
  if (order.empty() && field(payload, "head_commit").is_object())
    order.push_back(&field(payload, "head_commit"));
  std::int64_t next = 1;
  {
    auto stmt = m_db.prepare("SELECT COALESCE(MAX(seq), 0) + 1 FROM commits");
    if (!stmt) return tl::unexpected(stmt.error());
    if (auto row = stmt->step(); !row) return tl::unexpected(row.error());
    next = stmt->column_int(0);
  }
  std::vector<std::string> added;
  for (const auto* commit : order) {
    const std::string sha = text_field(*commit, "id");
    if (sha.empty()) return bad_payload("push", "a commit has no id");
    auto stmt = m_db.prepare(
        "INSERT INTO commits(sha, seq, message, author, committed_at) VALUES(?,?,?,?,?) "
        "ON CONFLICT(sha) DO NOTHING");
    if (!stmt) return tl::unexpected(stmt.error());
    const std::string message = text_field(*commit, "message");
    stmt->bind(1, sha)
        .bind(2, next)
        .bind(3, message.substr(0, message.find('\n')))
        .bind(4, text_field(field(*commit, "author"), "name"))
        .bind(5, parse_github_time(text_field(*commit, "timestamp")).value_or(now));
    if (auto ok = stmt->run(); !ok) return ok;
    if (m_db.changes() > 0) {
      added.push_back(sha);
      ++next;
    }
  }
  if (auto ok = enqueue_dispatches("push", delivery_id, body, now); !ok) return ok;
  // Results may have arrived before the push that orders their commit.
  for (const auto& sha : added) {
    if (auto ok = attribute_sha(sha, now); !ok) return ok;
  }
  return {};
}

}  // namespace relforge::ci_relay
