// Triage classifications on the relay's job rows: logs arrive from the replay file, the result
// callback, or the GitHub API (fetched by the worker after the webhook was acknowledged).
#include "ci_relay/log_fetches.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "platform/sqlite_rows.hpp"

namespace relforge::ci_relay {

Status LogFetches::queue(const FailedRun& run, std::int64_t now) {
  auto stmt = m_store.cached(
      "INSERT OR IGNORE INTO log_fetches(job_row, repo, github_job_id, next_attempt_at) "
      "SELECT id, repo, github_job_id, ? FROM jobs WHERE repo = ? AND workflow = ? AND job = ? AND "
      "run_id = ? AND run_attempt = ? AND classification IS NULL");
  if (!stmt) return tl::unexpected(stmt.error());
  return (*stmt)
      ->bind(1, now)
      .bind(2, run.key.repo)
      .bind(3, run.key.workflow)
      .bind(4, run.key.job)
      .bind(5, run.run_id)
      .bind(6, run.run_attempt)
      .run();
}

Result<int> LogFetches::store_classification(const std::string& repo, std::int64_t github_job_id,
                                             const triage::Classification& result) {
  platform::Database& db = m_store.db();
  auto stmt = db.prepare(
      "UPDATE jobs SET classification = ?, classification_category = ?, classification_line = ?, "
      "classification_line_num = ?, classification_captures = ?, classification_flaky = ? "
      "WHERE lower(repo) = lower(?) AND github_job_id = ?");
  if (!stmt) return tl::unexpected(stmt.error());
  if (result.match) {
    const auto& m = *result.match;
    const std::string captures =
        nlohmann::json(m.captures).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    stmt->bind(1, m.rule)
        .bind(2, m.category)
        .bind(3, m.line)
        .bind(4, static_cast<std::int64_t>(m.line_num))
        .bind(5, captures)
        .bind(6, m.flaky ? 1 : 0);
  } else {
    // Classified, but no rule matched: '' tells it apart from "log not seen yet" (NULL).
    stmt->bind(1, std::string_view("")).bind_null(2).bind_null(3).bind_null(4).bind_null(5).bind_null(6);
  }
  stmt->bind(7, repo).bind(8, github_job_id);
  if (auto ok = stmt->run(); !ok) return tl::unexpected(ok.error());
  const int updated = db.changes();
  auto done =
      db.prepare("UPDATE log_fetches SET state = 'done' WHERE lower(repo) = lower(?) AND github_job_id = ?");
  if (!done) return tl::unexpected(done.error());
  if (auto ok = done->bind(1, repo).bind(2, github_job_id).run(); !ok) return tl::unexpected(ok.error());
  return updated;
}

Result<int> LogFetches::classify(const std::string& repo, std::int64_t github_job_id, std::string_view log) {
  return store_classification(repo, github_job_id, triage::classify(log, m_rules));
}

Result<std::vector<LogRequest>> LogFetches::due(std::int64_t now, int limit) {
  const RelayConfig& config = m_store.config();
  std::vector<LogRequest> due;
  auto stmt = m_store.db().prepare(
      "SELECT f.job_row, f.repo, f.github_job_id FROM log_fetches f JOIN jobs j ON j.id = f.job_row "
      "WHERE f.state = 'pending' AND f.next_attempt_at <= ? AND j.classification IS NULL "
      "ORDER BY f.next_attempt_at, f.job_row LIMIT ?");
  if (!stmt) return tl::unexpected(stmt.error());
  stmt->bind(1, now).bind(2, static_cast<std::int64_t>(limit));
  auto read = platform::each_row<std::int64_t, std::string, std::int64_t>(
      *stmt, [&](std::int64_t job_row, std::string repo, std::int64_t github_job_id) {
        const DownstreamRepo* d = config.find(repo);
        std::string url =
            config.api_base + "/repos/" + repo + "/actions/jobs/" + std::to_string(github_job_id) + "/logs";
        due.push_back({.job_row = job_row,
                       .repo = std::move(repo),
                       .github_job_id = github_job_id,
                       .url = std::move(url),
                       .token = d != nullptr ? d->token : config.upstream_token});
      });
  if (!read) return tl::unexpected(read.error());
  return due;
}

Status LogFetches::record(const LogRequest& request, const FetchedLog& answer, std::int64_t now) {
  platform::Database& db = m_store.db();
  const RelayConfig& config = m_store.config();
  auto tx = platform::Transaction::begin(db);
  if (!tx) return tl::unexpected(tx.error());
  if (answer.status >= 200 && answer.status < 300) {
    if (auto ok = classify(request.repo, request.github_job_id, answer.body); !ok) {
      return tl::unexpected(ok.error());
    }
    return tx->commit();
  }
  if (auto ok = record_failed_call(db, config, "log_fetches", "job_row", request.job_row, answer.status,
                                   answer.error, now);
      !ok)
    return ok;
  return tx->commit();
}

}  // namespace relforge::ci_relay
