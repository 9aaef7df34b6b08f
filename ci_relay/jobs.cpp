// Job state per (repo, workflow, job, run_id, run_attempt) and the downstream result callback.
#include "ci_relay/jobs.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "ci_relay/cells.hpp"
#include "ci_relay/json_fields.hpp"
#include "core/text.hpp"
#include "platform/digest.hpp"
#include "platform/sqlite_rows.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

int status_rank(const std::string& status) {
  if (status == "completed") return 2;
  if (status == "in_progress") return 1;
  return 0;
}

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? static_cast<unsigned>(-3) : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool digits(const std::string& text, std::size_t at, std::size_t count, int& out) {
  if (at + count > text.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_github_time(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(text, 0, 4, year) || text.size() < 19 || text[4] != '-' || !digits(text, 5, 2, month) ||
      text[7] != '-' || !digits(text, 8, 2, day) || text[10] != 'T' || !digits(text, 11, 2, hour) ||
      text[13] != ':' || !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second)) {
    return std::nullopt;
  }
  std::size_t at = 19;
  if (at < text.size() && text[at] == '.') {
    ++at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
  }
  std::int64_t offset = 0;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int oh = 0, om = 0;
    if (!digits(text, at + 1, 2, oh) || text.size() < at + 6 || text[at + 3] != ':' ||
        !digits(text, at + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset = (text[at] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    at += 6;
  } else if (at < text.size() && text[at] == 'Z') {
    ++at;
  } else {
    return std::nullopt;
  }
  // A real calendar day (no 31 February) and clock time; second 60 is RFC 3339's leap second.
  const std::chrono::year_month_day date{std::chrono::year(year),
                                         std::chrono::month(static_cast<unsigned>(month)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  if (at != text.size() || !date.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return days * 86400 + hour * 3600 + minute * 60 + second - offset;
}

Status Jobs::upsert(JobUpdate update, std::int64_t now) {
  const auto& [repo, workflow, job] = update.key;
  const std::int64_t run_id = update.run_id, run_attempt = update.run_attempt;
  const std::string& head_sha = update.head_sha;
  const std::string& status = update.status;
  const auto& conclusion = update.conclusion;
  auto& queued_at = update.queued_at;
  auto& started_at = update.started_at;
  auto& completed_at = update.completed_at;
  const auto& github_job_id = update.github_job_id;
  if (status == "queued" && !queued_at) queued_at = now;
  if (status == "in_progress" && !started_at) started_at = now;
  if (status == "completed" && !completed_at) completed_at = now;
  auto find = m_store.cached(
      "SELECT id, status, conclusion FROM jobs WHERE repo = ? AND workflow = ? AND job = ? AND run_id = ? "
      "AND run_attempt = ?");
  if (!find) return tl::unexpected(find.error());
  (*find)->bind(1, repo).bind(2, workflow).bind(3, job).bind(4, run_id).bind(5, run_attempt);
  auto found = (*find)->step();
  if (!found) return tl::unexpected(found.error());
  bool changed = true;
  bool completed = status == "completed";
  auto bind_optional = [](platform::Statement& stmt, int index, const std::optional<std::int64_t>& value) {
    if (value)
      stmt.bind(index, *value);
    else
      stmt.bind_null(index);
  };
  if (!*found) {
    auto insert = m_store.cached(
        "INSERT INTO jobs(repo, workflow, job, run_id, run_attempt, head_sha, status, conclusion, queued_at, "
        "started_at, completed_at, url, runner_name, source, github_job_id) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!insert) return tl::unexpected(insert.error());
    (*insert)
        ->bind(1, repo)
        .bind(2, workflow)
        .bind(3, job)
        .bind(4, run_id)
        .bind(5, run_attempt)
        .bind(6, head_sha);
    (*insert)->bind(7, status).bind_optional(8, conclusion);
    bind_optional(**insert, 9, queued_at);
    bind_optional(**insert, 10, started_at);
    bind_optional(**insert, 11, completed_at);
    (*insert)->bind(12, update.url).bind(13, update.runner).bind(14, update.source);
    bind_optional(**insert, 15, github_job_id);
    if (auto ok = (*insert)->run(); !ok) return ok;
  } else {
    const std::int64_t id = (*find)->column_int(0);
    const std::string old_status = (*find)->column_text(1);
    const auto old_conclusion = (*find)->column_optional_text(2);
    // Deliveries arrive out of order: the state only moves forward, timestamps fill in.
    const bool forward = status_rank(status) > status_rank(old_status);
    const std::string new_status = forward ? status : old_status;
    const auto new_conclusion = status == "completed" && conclusion ? conclusion : old_conclusion;
    changed = new_status != old_status || new_conclusion != old_conclusion;
    completed = new_status == "completed";
    auto change = m_store.cached(
        "UPDATE jobs SET status = ?, conclusion = ?, queued_at = MIN(COALESCE(queued_at, ?4), COALESCE(?4, "
        "queued_at)), "
        "started_at = COALESCE(started_at, ?5), completed_at = COALESCE(?6, completed_at), "
        "url = CASE WHEN ?7 = '' THEN url ELSE ?7 END, runner_name = CASE WHEN ?8 = '' THEN runner_name ELSE "
        "?8 END, github_job_id = COALESCE(?10, github_job_id) "
        "WHERE id = ?9");
    if (!change) return tl::unexpected(change.error());
    (*change)->bind(1, new_status);
    (*change)->bind_optional(2, new_conclusion).bind_null(3);
    bind_optional(**change, 4, queued_at);
    bind_optional(**change, 5, started_at);
    bind_optional(**change, 6, completed_at);
    (*change)->bind(7, update.url).bind(8, update.runner).bind(9, id);
    bind_optional(**change, 10, github_job_id);
    if (auto ok = (*change)->run(); !ok) return ok;
  }
  if (!changed) return {};
  // Only jobs on ordered upstream commits take part in attribution (a PR head's do not); a commit
  // that arrives later triggers attribute_sha.
  auto known = m_store.cached("SELECT 1 FROM commits WHERE sha = ?");
  if (!known) return tl::unexpected(known.error());
  auto on_trunk = (*known)->bind(1, head_sha).step();
  if (!on_trunk) return tl::unexpected(on_trunk.error());
  // Only a completed run can turn a cell good or bad (queued and in-progress runs leave every
  // cell's verdict as it was), so earlier steps skip the history walk.
  if (*on_trunk && completed) {
    if (auto ok = m_attribution.attribute(update.key, now); !ok) return ok;
  }
  return m_outbox.enqueue_check_run(update.key, head_sha, now);
}

Result<int> Jobs::sweep_zombies(std::int64_t now) {
  platform::Database& db = m_store.db();
  const RelayConfig& config = m_store.config();
  std::vector<JobKey> keys;
  auto tx = platform::Transaction::begin(db);
  if (!tx) return tl::unexpected(tx.error());
  {
    auto stmt = db.prepare(
        // Without the hint the planner walks a whole (repo, workflow, job) index for the DISTINCT.
        "SELECT DISTINCT repo, workflow, job FROM jobs INDEXED BY jobs_in_progress "
        "WHERE status = 'in_progress' AND started_at < ?");
    if (!stmt) return tl::unexpected(stmt.error());
    stmt->bind(1, now - config.zombie_seconds);
    auto read = platform::each_row<std::string, std::string, std::string>(
        *stmt, [&](std::string repo, std::string workflow, std::string job) {
          keys.push_back({std::move(repo), std::move(workflow), std::move(job)});
        });
    if (!read) return tl::unexpected(read.error());
  }
  auto update = db.prepare(
      "UPDATE jobs SET status = 'completed', conclusion = 'timed_out', completed_at = ? "
      "WHERE status = 'in_progress' AND started_at < ?");
  if (!update) return tl::unexpected(update.error());
  if (auto ok = update->bind(1, now).bind(2, now - config.zombie_seconds).run(); !ok) {
    return tl::unexpected(ok.error());
  }
  const int swept = db.changes();
  for (const auto& key : keys) {
    if (auto ok = m_attribution.attribute(key, now); !ok) return tl::unexpected(ok.error());
  }
  if (auto ok = tx->commit(); !ok) return tl::unexpected(ok.error());
  return swept;
}

std::string result_delivery_id(const JobKey& key, std::int64_t run_id, std::int64_t run_attempt,
                               const std::string& status) {
  // Joined with separators, workflow "build/linux" + job "test" and "build" + "linux/test" made
  // the same key, and the second job's result was refused for ever. Each part is length-prefixed
  // before hashing; the "·" (not ASCII) keeps the key out of reach of an X-GitHub-Delivery, which
  // intake takes only in printable ASCII, and apart from the "result:" keys older relays stored.
  const auto& [repo, workflow, job] = key;
  std::string tuple;
  for (const std::string& part :
       {repo, workflow, job, std::to_string(run_id), std::to_string(run_attempt), status}) {
    tuple += std::to_string(part.size()) + ":" + part;
  }
  return "result·" + platform::to_hex(platform::sha256(tuple));
}

CallbackOutcome Jobs::report_result(const std::string& repo, const std::string& body, std::int64_t now) {
  platform::Database& db = m_store.db();
  const DownstreamRepo* downstream = m_store.config().find(repo);
  if (downstream == nullptr) return {401, "repository " + repo + " is not a configured downstream"};
  if (downstream->tier == Tier::l1) {
    return {202, "ignored: results from L1 (onboarding) repositories are not recorded"};
  }
  if (!core::json_nesting_within(body, k_max_json_nesting))
    return {400, "the body nests JSON deeper than " + std::to_string(k_max_json_nesting) + " levels"};
  const json payload = json::parse(body, nullptr, false);
  if (payload.is_discarded() || !payload.is_object()) return {400, "the body is not a JSON object"};
  const std::string sha = text_field(payload, "upstream_sha"), workflow = text_field(payload, "workflow"),
                    job = text_field(payload, "job"), status = text_field(payload, "status");
  const auto run_id = int_field(payload, "run_id");
  const bool attempt_given = !field(payload, "run_attempt").is_null();
  const auto given_attempt = int_field(payload, "run_attempt");
  const std::int64_t attempt = given_attempt.value_or(1);
  const auto conclusion = optional_text(payload, "conclusion");
  if (sha.empty() || workflow.empty() || job.empty() || !run_id) {
    return {400, "upstream_sha, workflow, job and run_id are required"};
  }
  // GitHub numbers runs and attempts from 1; anything else names no run and would never merge.
  if (*run_id < 1) return {400, "run_id must be a positive integer, not " + std::to_string(*run_id)};
  if ((attempt_given && !given_attempt) || attempt < 1)
    return {400, "run_attempt must be a positive integer (default 1)"};
  if (status != "in_progress" && status != "completed") {
    return {400, "status must be in_progress or completed, not '" + status + "'"};
  }
  if (status == "completed" && !conclusion) return {400, "a completed result needs a conclusion"};
  // An unknown conclusion would leave its cell pending for ever: refuse it rather than record it.
  if (conclusion && !is_github_conclusion(*conclusion)) {
    return {400,
            "conclusion must be one of success, failure, neutral, cancelled, skipped, timed_out, "
            "action_required, stale, startup_failure (lower-case), not '" +
                *conclusion + "'"};
  }
  {
    auto known = db.prepare(
        "SELECT 1 FROM commits WHERE sha = ? UNION SELECT 1 FROM pull_requests WHERE head_sha = ?");
    if (!known) return {503, known.error().describe()};
    known->bind(1, sha).bind(2, sha);
    auto row = known->step();
    if (!row) return {503, row.error().describe()};
    if (!*row) return {422, "upstream_sha " + sha + " is not a known upstream commit or pull request head"};
  }
  if (auto ok = m_store.require_full_sync(); !ok) return {503, ok.error().describe()};
  auto tx = platform::Transaction::begin(db);
  if (!tx) return {503, tx.error().describe()};
  std::optional<std::string> current;
  {
    auto stmt = db.prepare(
        "SELECT status FROM jobs WHERE repo = ? AND workflow = ? AND job = ? AND run_id = ? AND run_attempt "
        "= ?");
    if (!stmt) return {503, stmt.error().describe()};
    stmt->bind(1, downstream->repo).bind(2, workflow).bind(3, job).bind(4, *run_id).bind(5, attempt);
    auto row = platform::first_row<std::string>(*stmt);
    if (!row) return {503, row.error().describe()};
    if (*row) current = std::get<0>(**row);
  }
  if (status == "in_progress" && current) {
    return {409, "duplicate: run " + std::to_string(*run_id) + " attempt " + std::to_string(attempt) +
                     " of " + workflow + "/" + job + " is already " + *current};
  }
  if (status == "completed" && current != "in_progress") {
    return {409, current ? "duplicate: this run is already completed"
                         : "completed without in_progress: report status in_progress first"};
  }
  const std::string delivery_id =
      result_delivery_id({downstream->repo, workflow, job}, *run_id, attempt, status);
  auto store = db.prepare(
      "INSERT INTO delivery_log(delivery_id, event, received_at, body) VALUES(?, 'relforge_result', ?, ?)");
  if (!store) return {503, store.error().describe()};
  if (auto ok = store->bind(1, delivery_id).bind(2, now).bind_blob(3, body).run(); !ok) {
    return {503, ok.error().describe()};
  }
  // Applied right here, so settled as processed (the normaliser's cursor passes over it).
  if (auto ok = m_store.settle({.delivery = db.last_insert_rowid(), .state = "processed", .note = ""}); !ok)
    return {503, ok.error().describe()};
  if (auto ok =
          upsert({.key = {downstream->repo, workflow, job},
                  .run_id = *run_id,
                  .run_attempt = attempt,
                  .head_sha = sha,
                  .status = status,
                  .conclusion = conclusion,
                  .queued_at = std::nullopt,
                  .started_at = status == "in_progress" ? std::optional<std::int64_t>(now) : std::nullopt,
                  .completed_at = status == "completed" ? std::optional<std::int64_t>(now) : std::nullopt,
                  .url = text_field(payload, "url"),
                  .runner = "",
                  .source = "callback",
                  .github_job_id = std::nullopt},
                 now);
      !ok) {
    return {503, ok.error().describe()};
  }
  if (auto ok = tx->commit(); !ok) return {503, ok.error().describe()};
  return {202, "recorded " + status};
}

}  // namespace relforge::ci_relay
