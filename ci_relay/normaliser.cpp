#include "ci_relay/normaliser.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ci_relay/json_fields.hpp"
#include "ci_relay/upstream_commits.hpp"
#include "core/text.hpp"
#include "platform/sqlite_rows.hpp"

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
// (oldest first), which is the first-parent order for the linear pushes a trunk receives. The
// payload is signed, not trusted: commits are indexed once (a 20,000-commit push stays linear) and
// each is taken at most once, so a commit that names itself or an earlier one as parent ends the
// walk instead of looping under the database lock.
std::vector<const json*> upstream_order(const json& payload) {
  const auto& commits = field(payload, "commits");
  std::vector<const json*> listed;
  if (commits.is_array()) {
    for (const auto& c : commits) listed.push_back(&c);
  }
  bool have_parents = !listed.empty();
  for (const auto* c : listed) have_parents = have_parents && field(*c, "parents").is_array();
  if (!have_parents) return listed;
  std::unordered_map<std::string, const json*> by_id;
  by_id.reserve(listed.size());
  for (const auto* c : listed) by_id[text_field(*c, "id")] = c;  // a repeated id: the last, as before
  std::unordered_set<const json*> taken;
  std::vector<const json*> chain;
  std::string at = text_field(payload, "after");
  const std::string before = text_field(payload, "before");
  while (!at.empty() && at != before && chain.size() < listed.size()) {
    auto found = by_id.find(at);
    if (found == by_id.end() || !taken.insert(found->second).second) break;
    chain.push_back(found->second);
    const auto& parents = field(*found->second, "parents");
    at = parents.empty() || !parents[0].is_string() ? std::string() : parents[0].get<std::string>();
  }
  return {chain.rbegin(), chain.rend()};
}

}  // namespace

void Normaliser::keep_scanned(std::int64_t row, WorkflowJobFields fields) {
  if (m_scanned.size() < k_max_scanned) m_scanned.emplace(row, std::move(fields));
}

Result<std::int64_t> Normaliser::cursor() {
  auto stmt = m_parts.store.cached("SELECT upto FROM normalise_cursor WHERE id = 1");
  if (!stmt) return tl::unexpected(stmt.error());
  auto row = platform::first_row<std::int64_t>(**stmt);
  if (!row) return tl::unexpected(row.error());
  if (!*row) return fail(ErrorCategory::internal, "the normalise cursor row is missing");
  return std::get<0>(**row);
}

Result<PendingBatch> Normaliser::fetch(int limit) {
  PendingBatch batch;
  auto at = cursor();
  if (!at) return tl::unexpected(at.error());
  batch.cursor = *at;
  // Rows settled at intake (ignored, rejected) come along so the cursor moves past them; their
  // bodies are not read.
  auto lease = m_parts.store.cached(
      "SELECT l.id, l.event, l.delivery_id, l.received_at, "
      "EXISTS (SELECT 1 FROM delivery_outcomes o WHERE o.delivery = l.id), l.body "
      "FROM delivery_log l WHERE l.id > ? ORDER BY l.id LIMIT ?");
  if (!lease) return tl::unexpected(lease.error());
  platform::Statement& stmt = **lease;
  stmt.bind(1, batch.cursor).bind(2, static_cast<std::int64_t>(limit));
  auto read = platform::each_row<std::int64_t, std::string, std::string, std::int64_t, bool>(
      stmt, [&](std::int64_t id, std::string event, std::string delivery_id, std::int64_t received_at,
                bool settled) {
        PendingDelivery row{.id = id,
                            .event = std::move(event),
                            .delivery_id = std::move(delivery_id),
                            .body = {},
                            .received_at = received_at,
                            .settled = settled,
                            .job = std::nullopt,
                            .payload = {}};
        if (auto scanned = m_scanned.find(row.id); scanned != m_scanned.end()) {
          row.job = std::move(scanned->second);  // read at intake from these very bytes
        } else if (!row.settled) {
          row.body = stmt.column_blob(5);
        }
        batch.rows.push_back(std::move(row));
      });
  if (!read) return tl::unexpected(read.error());
  // Everything up to here is handed out (or was handled elsewhere): the cache lets go of it.
  const std::int64_t done = batch.rows.empty() ? batch.cursor : batch.rows.back().id;
  m_scanned.erase(m_scanned.begin(), m_scanned.upper_bound(done));
  return batch;
}

void Normaliser::prepare(PendingBatch& batch) {
  for (auto& row : batch.rows) {
    if (row.settled || row.job) continue;
    if (row.event == "workflow_job")
      row.job = scan_workflow_job(row.body);
    else if (core::json_nesting_within(row.body, k_max_json_nesting))  // rows stored by older relays
      row.payload = nlohmann::json::parse(row.body, nullptr, false);
    else
      row.payload = nlohmann::json(nlohmann::json::value_t::discarded);
  }
}

Result<int> Normaliser::apply(PendingBatch& batch) {
  if (batch.rows.empty()) return 0;
  // Normalisation is derived from deliveries that are already durable, so its commit skips the
  // fsync; the next intake commit (synchronous=FULL) flushes the log with it. (The level can only
  // change outside a transaction.)
  if (auto ok = m_parts.store.relax_sync(); !ok) return tl::unexpected(ok.error());
  Result<int> normalised = apply_in_transaction(batch);
  if (auto ok = m_parts.store.require_full_sync(); !ok) return tl::unexpected(ok.error());
  return normalised;
}

Result<int> Normaliser::apply_in_transaction(const PendingBatch& batch) {
  auto tx = platform::Transaction::begin(m_parts.store.db());
  if (!tx) return tl::unexpected(tx.error());
  // Another process (relay replay) may have normalised these rows meanwhile: then this batch is
  // stale, and nothing is applied twice.
  auto at = cursor();
  if (!at) return tl::unexpected(at.error());
  if (*at != batch.cursor) return 0;
  int normalised = 0;
  for (const auto& row : batch.rows) {
    if (row.settled) continue;
    if (auto ok = process_row(row); !ok) {
      return tl::unexpected(Error(ok.error()).with_context("normalising delivery " + row.delivery_id));
    }
    ++normalised;
  }
  auto advance = m_parts.store.cached("UPDATE normalise_cursor SET upto = ? WHERE id = 1");
  if (!advance) return tl::unexpected(advance.error());
  if (auto ok = (*advance)->bind(1, batch.rows.back().id).run(); !ok) return tl::unexpected(ok.error());
  if (auto ok = tx->commit(); !ok) return tl::unexpected(ok.error());
  return normalised;
}

Result<int> Normaliser::process_pending(int limit) {
  int handled = 0, fetched = 0;
  while (fetched < limit) {
    auto batch = fetch(std::min(256, limit - fetched));
    if (!batch) return tl::unexpected(batch.error());
    if (batch->rows.empty()) break;
    fetched += static_cast<int>(batch->rows.size());
    prepare(*batch);
    auto n = apply(*batch);
    if (!n) return tl::unexpected(n.error());
    handled += *n;
  }
  return handled;
}

Status Normaliser::process_row(const PendingDelivery& row) {
  // A savepoint per row inside the batch's transaction: a payload the relay cannot use is rolled
  // back alone and parked; database trouble aborts the batch (retried on the next pass).
  auto savepoint = m_parts.store.cached("SAVEPOINT delivery");
  if (!savepoint) return tl::unexpected(savepoint.error());
  if (auto ok = (*savepoint)->run(); !ok) return ok;
  auto ok = normalise(row);
  if (ok) {
    auto release = m_parts.store.cached("RELEASE delivery");
    if (!release) return tl::unexpected(release.error());
    return (*release)->run();
  }
  if (ok.error().category() != ErrorCategory::invalid_input) return ok;
  if (auto undo = m_parts.store.db().execute("ROLLBACK TO delivery; RELEASE delivery"); !undo) return undo;
  return m_parts.store.settle({.delivery = row.id, .state = "rejected", .note = ok.error().describe()});
}

Status Normaliser::on_workflow_job(const WorkflowJobFields& job, const std::string& event, std::int64_t now) {
  if (!job.run_id || job.name.empty() || job.head_sha.empty()) {
    return bad_payload(event, "workflow_job.run_id, name or head_sha is missing");
  }
  std::string workflow = job.workflow_name;
  if (workflow.empty()) workflow = "workflow-" + std::to_string(*job.run_id);
  const std::string status = job_status(job.status);
  const auto conclusion = status == "completed" ? job.conclusion : std::nullopt;
  const JobKey key{job.repo, workflow, job.name};
  const std::int64_t attempt = job.run_attempt.value_or(1);
  if (auto ok = m_parts.jobs.upsert(
          {.key = key,
           .run_id = *job.run_id,
           .run_attempt = attempt,
           .head_sha = job.head_sha,
           .status = status,
           .conclusion = conclusion,
           .queued_at = parse_github_time(job.created_at),
           .started_at = status == "queued" ? std::nullopt : parse_github_time(job.started_at),
           .completed_at = status == "completed" ? parse_github_time(job.completed_at) : std::nullopt,
           .url = job.html_url,
           .runner = job.runner_name,
           .source = "workflow_job",
           .github_job_id = job.id},
          now);
      !ok) {
    return ok;
  }
  // A failed job's log is fetched later by the worker, never before the webhook is answered.
  if (job.id && m_parts.store.config().fetch_logs == FetchLogs::yes &&
      (conclusion == "failure" || conclusion == "timed_out")) {
    return m_parts.logs.queue({.key = key, .run_id = *job.run_id, .run_attempt = attempt}, now);
  }
  return {};
}

Status Normaliser::normalise(const PendingDelivery& row) {
  const std::string& event = row.event;
  if (event == "workflow_job") {  // the bulk of the traffic: read by one SAX pass, no document
    if (!row.job) return bad_payload(event, "not JSON");
    return on_workflow_job(*row.job, event, row.received_at);  // processed, no note: nothing to settle
  }
  // Parsed by prepare, outside the database lock.
  if (row.payload.is_discarded()) {
    if (!core::json_nesting_within(row.body, k_max_json_nesting))
      return bad_payload(event, "nested deeper than " + std::to_string(k_max_json_nesting) + " levels");
    return bad_payload(event, "not JSON");
  }
  Result<Settled> settled = Settled{};
  if (event == "push") {
    settled = on_push(row);
  } else if (event == "pull_request") {
    settled = on_pull_request(row);
  } else if (event == "check_run") {
    settled = on_check_run(row);
  } else if (event == "issues") {
    settled = on_issues(row);
  } else if (event == "workflow_run" || event == "check_suite") {
    if (auto ok = on_run(row); !ok) return ok;
  }
  if (!settled) return tl::unexpected(settled.error());
  // A plainly processed delivery needs no row of its own: the cursor moving past it says so.
  if (settled->state == "processed" && settled->note.empty()) return {};
  return m_parts.store.settle({.delivery = row.id, .state = settled->state, .note = settled->note});
}

Result<Normaliser::Settled> Normaliser::on_pull_request(const PendingDelivery& row) {
  const json& payload = row.payload;
  const std::string repo = text_field(field(payload, "repository"), "full_name");
  const auto& pr = field(payload, "pull_request");
  const std::string action = text_field(payload, "action");
  if (!m_parts.store.config().is_upstream(repo))
    return Settled{"ignored", "pull_request from " + repo + " (only upstream pull requests are dispatched)"};
  auto number = int_field(pr, "number");
  const std::string head = text_field(field(pr, "head"), "sha");
  if (!number || head.empty()) return bad_payload(row.event, "pull_request.number or head.sha is missing");
  std::string labels;
  if (field(pr, "labels").is_array()) {
    for (const auto& label : field(pr, "labels")) labels += text_field(label, "name") + "\n";
  }
  std::string before;  // the labels until now: an L3 gate label that appears opens its check runs
  {
    auto stmt = m_parts.store.cached("SELECT labels, head_sha FROM pull_requests WHERE number = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    auto previous = platform::first_row<std::string, std::string>((*stmt)->bind(1, *number));
    if (!previous) return tl::unexpected(previous.error());
    if (*previous && std::get<1>(**previous) == head) before = std::get<0>(**previous);
  }
  auto stmt = m_parts.store.db().prepare(
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
  if (auto ok = stmt->run(); !ok) return tl::unexpected(ok.error());
  auto has = [](const std::string& list, const std::string& label) {
    return ("\n" + list).find("\n" + label + "\n") != std::string::npos;
  };
  for (const auto& d : m_parts.store.config().downstream) {
    const std::string gate = "ciflow/crcr/" + d.device;
    if (d.tier != Tier::l3 || d.device.empty() || !has(labels, gate) || has(before, gate)) continue;
    if (auto ok = m_parts.outbox.enqueue_check_runs(d.repo, head, row.received_at); !ok)
      return tl::unexpected(ok.error());
  }
  if (action == "opened" || action == "reopened" || action == "synchronize" || action == "closed") {
    if (auto ok = m_parts.outbox.enqueue_dispatches(row.event, row.delivery_id, row.body, row.received_at);
        !ok)
      return tl::unexpected(ok.error());
    return Settled{};
  }
  return Settled{"processed", "pull_request action '" + action + "' is recorded, not dispatched"};
}

Result<Normaliser::Settled> Normaliser::on_check_run(const PendingDelivery& row) {
  const json& payload = row.payload;
  const std::string repo = text_field(field(payload, "repository"), "full_name");
  const auto& check = field(payload, "check_run");
  auto id = int_field(check, "id");
  const std::string name = text_field(check, "name"), sha = text_field(check, "head_sha");
  if (!id || name.empty() || sha.empty())
    return bad_payload(row.event, "check_run.id, name or head_sha is missing");
  if (name.rfind("relforge/", 0) == 0) {
    if (text_field(payload, "action") == "rerequested" && m_parts.store.config().is_upstream(repo))
      return on_rerequested(row);
    return Settled{"ignored", "check run created by the relay itself"};
  }
  std::string app = text_field(field(check, "app"), "slug");
  // Every Actions job also sends a workflow_job event (same job, with its workflow's name):
  // recording its check run too would count the job twice, under a second column.
  if (app == "github-actions")
    return Settled{"ignored", "check run of a GitHub Actions job (recorded from its workflow_job event)"};
  if (app.empty()) app = "checks";
  const std::string status = job_status(text_field(check, "status"));
  const bool completed = status == "completed";
  if (auto ok =
          m_parts.jobs.upsert({.key = {repo, app, name},
                               .run_id = *id,
                               .run_attempt = 1,
                               .head_sha = sha,
                               .status = status,
                               .conclusion = completed ? optional_text(check, "conclusion") : std::nullopt,
                               .queued_at = time_field(check, "started_at"),
                               .started_at = time_field(check, "started_at"),
                               .completed_at = completed ? time_field(check, "completed_at") : std::nullopt,
                               .url = text_field(check, "html_url"),
                               .runner = "",
                               .source = "check_run",
                               .github_job_id = std::nullopt},
                              row.received_at);
      !ok) {
    return tl::unexpected(ok.error());
  }
  return Settled{};
}

Result<Normaliser::Settled> Normaliser::on_rerequested(const PendingDelivery& row) {
  const auto& check = field(row.payload, "check_run");
  auto why = m_parts.outbox.enqueue_rerun(text_field(check, "external_id"), text_field(check, "head_sha"),
                                          row.delivery_id, row.received_at);
  if (!why) return tl::unexpected(why.error());
  if (!why->empty()) return Settled{"ignored", "check run re-requested: " + *why};
  return Settled{"processed", "check run re-requested: the downstream job is re-run"};
}

Result<Normaliser::Settled> Normaliser::on_issues(const PendingDelivery& row) {
  const json& payload = row.payload;
  const std::string repo = text_field(field(payload, "repository"), "full_name");
  if (!m_parts.store.config().is_upstream(repo))
    return Settled{"ignored", "issues of " + repo + " (only the upstream's issues mark jobs unstable)"};
  const auto& issue = field(payload, "issue");
  auto number = int_field(issue, "number");
  const std::string action = text_field(payload, "action");
  if (!number) return bad_payload(row.event, "issue.number is missing");
  if (action == "deleted") {
    auto stmt = m_parts.store.db().prepare("DELETE FROM issues WHERE number = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    if (auto ok = stmt->bind(1, *number).run(); !ok) return tl::unexpected(ok.error());
    return Settled{};
  }
  const std::string state = text_field(issue, "state");
  if (state != "open" && state != "closed") return bad_payload(row.event, "issue.state is '" + state + "'");
  // Deliveries can arrive out of order: an older update never overwrites a newer one.
  const std::int64_t updated = time_field(issue, "updated_at").value_or(row.received_at);
  auto stmt = m_parts.store.db().prepare(
      "INSERT INTO issues(number, title, state, trusted, updated_at) VALUES(?,?,?,?,?) ON CONFLICT(number) "
      "DO "
      "UPDATE SET title = excluded.title, state = excluded.state, trusted = excluded.trusted, "
      "updated_at = excluded.updated_at "
      "WHERE excluded.updated_at >= issues.updated_at");
  if (!stmt) return tl::unexpected(stmt.error());
  const std::string association = text_field(issue, "author_association");
  const bool trusted = text_field(field(issue, "user"), "type") == "Bot" || association == "OWNER" ||
                       association == "MEMBER" || association == "COLLABORATOR";
  stmt->bind(1, *number)
      .bind(2, text_field(issue, "title"))
      .bind(3, state)
      .bind(4, std::int64_t{trusted ? 1 : 0})
      .bind(5, updated);
  if (auto ok = stmt->run(); !ok) return tl::unexpected(ok.error());
  return Settled{};
}

Status Normaliser::on_run(const PendingDelivery& row) {
  const json& payload = row.payload;
  const std::string& event = row.event;
  const std::string repo = text_field(field(payload, "repository"), "full_name");
  const auto& run = field(payload, event.c_str());
  auto id = int_field(run, "id");
  if (!id) return bad_payload(event, event + ".id is missing");
  std::string name =
      event == "workflow_run" ? text_field(run, "name") : text_field(field(run, "app"), "slug");
  auto stmt = m_parts.store.db().prepare(
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
      .bind(8, text_field(run, "status"))
      .bind_optional(9, optional_text(run, "conclusion"))
      .bind(10, text_field(run, "html_url"));
  return stmt->run();
}

Result<Normaliser::Settled> Normaliser::on_push(const PendingDelivery& row) {
  const json& payload = row.payload;
  const RelayConfig& config = m_parts.store.config();
  const std::int64_t now = row.received_at;
  const std::string repo = text_field(field(payload, "repository"), "full_name");
  const std::string ref = text_field(payload, "ref");
  if (!config.is_upstream(repo))
    return Settled{"ignored", "push to " + repo + " (only the upstream's pushes order commits)"};
  if (ref != "refs/heads/" + config.branch)
    return Settled{"ignored", "push to " + ref + ", not the tracked branch refs/heads/" + config.branch};
  if (field(payload, "deleted").is_boolean() && field(payload, "deleted").get<bool>())
    return Settled{"ignored", "branch deletion"};
  std::vector<const json*> order = upstream_order(payload);
  if (order.empty() && field(payload, "head_commit").is_object())
    order.push_back(&field(payload, "head_commit"));
  std::vector<PushedCommit> pushed;
  for (const auto* commit : order) {
    const std::string sha = text_field(*commit, "id");
    if (sha.empty()) return bad_payload("push", "a commit has no id");
    const std::string message = text_field(*commit, "message");
    pushed.push_back({.sha = sha,
                      .message = message.substr(0, message.find('\n')),
                      .author = text_field(field(*commit, "author"), "name"),
                      .committed_at = parse_github_time(text_field(*commit, "timestamp")).value_or(now)});
  }
  auto ordered = record_push(m_parts.store, text_field(payload, "before"), pushed);
  if (!ordered) return tl::unexpected(ordered.error());
  if (auto ok = m_parts.outbox.enqueue_dispatches("push", row.delivery_id, row.body, now); !ok)
    return tl::unexpected(ok.error());
  // Results may have arrived before the push that orders their commit, and a late push moves the
  // commits after it: the breakages of both are computed again over the new order.
  std::vector<std::string> reordered = std::move(ordered->added);
  reordered.insert(reordered.end(), ordered->moved.begin(), ordered->moved.end());
  if (auto ok = m_parts.attribution.attribute_shas(reordered, now); !ok) return tl::unexpected(ok.error());
  return Settled{};
}

}  // namespace relforge::ci_relay
