// Job rows with their triage classification: `relay jobs`, /api/jobs, and the readers the grid,
// the breakage view and the PR comment share.
#include <nlohmann/json.hpp>

#include "ci_relay/query.hpp"
#include "core/utf8.hpp"

namespace relforge::ci_relay {

using nlohmann::json;

std::optional<JobClassification> read_classification(const platform::Statement& stmt, int first) {
  if (stmt.is_null(first)) return std::nullopt;  // the log has not been classified
  JobClassification c;
  c.rule = stmt.column_text(first);
  c.category = stmt.column_optional_text(first + 1).value_or("");
  // The line is a log's bytes as stored; every view (HTML, JSON, the PR comment) gets valid UTF-8.
  c.line = core::to_valid_utf8(stmt.column_optional_text(first + 2).value_or(""));
  c.line_num = stmt.is_null(first + 3) ? 0 : stmt.column_int(first + 3);
  const json captures = json::parse(stmt.column_optional_text(first + 4).value_or("[]"), nullptr, false);
  if (captures.is_array()) {
    for (const auto& capture : captures) {
      if (capture.is_string()) c.captures.push_back(capture.get<std::string>());
    }
  }
  c.flaky = !stmt.is_null(first + 5) && stmt.column_int(first + 5) != 0;
  return c;
}

Result<std::vector<JobView>> list_jobs(platform::Database& db, const JobFilter& filter) {
  std::string sql = std::string(
                        "SELECT id, repo, workflow, job, head_sha, status, conclusion, run_id, run_attempt, "
                        "github_job_id, completed_at, COALESCE(url, ''), COALESCE(runner_name, ''), ") +
                    k_classification_columns + " FROM jobs WHERE 1";
  if (!filter.repo.empty()) sql += " AND lower(repo) = lower(?1)";
  if (!filter.sha.empty()) sql += " AND head_sha = ?2";
  if (filter.failed_only == FailedOnly::yes) sql += " AND conclusion IN ('failure', 'timed_out')";
  sql += " ORDER BY id DESC LIMIT ?3";
  auto stmt = db.prepare(sql);
  if (!stmt) return tl::unexpected(stmt.error());
  if (!filter.repo.empty()) stmt->bind(1, filter.repo);
  if (!filter.sha.empty()) stmt->bind(2, filter.sha);
  stmt->bind(3, static_cast<std::int64_t>(filter.limit));
  std::vector<JobView> out;
  for (;;) {
    auto row = stmt->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    JobView j;
    j.id = stmt->column_int(0);
    j.repo = stmt->column_text(1);
    j.workflow = stmt->column_text(2);
    j.job = stmt->column_text(3);
    j.head_sha = stmt->column_text(4);
    j.status = stmt->column_text(5);
    j.conclusion = stmt->column_optional_text(6);
    j.run_id = stmt->column_int(7);
    j.run_attempt = stmt->column_int(8);
    if (!stmt->is_null(9)) j.github_job_id = stmt->column_int(9);
    if (!stmt->is_null(10)) j.completed_at = stmt->column_int(10);
    j.url = stmt->column_text(11);
    j.runner = stmt->column_text(12);
    j.classification = read_classification(*stmt, 13);
    out.push_back(std::move(j));
  }
  return out;
}

json to_json(const JobClassification& c) {
  return {{"rule", c.rule.empty() ? json(nullptr) : json(c.rule)},
          {"category", c.category},
          {"line", c.line},
          {"line_num", c.line_num},
          {"captures", c.captures},
          {"flaky", c.flaky}};
}

json to_json(const JobView& j) {
  return {{"id", j.id},
          {"repo", j.repo},
          {"workflow", j.workflow},
          {"job", j.job},
          {"head_sha", j.head_sha},
          {"status", j.status},
          {"conclusion", j.conclusion ? json(*j.conclusion) : json(nullptr)},
          {"run_id", j.run_id},
          {"run_attempt", j.run_attempt},
          {"github_job_id", j.github_job_id ? json(*j.github_job_id) : json(nullptr)},
          {"completed_at", j.completed_at ? json(*j.completed_at) : json(nullptr)},
          {"url", j.url},
          {"runner_name", j.runner},
          {"classification", j.classification ? to_json(*j.classification) : json(nullptr)}};
}

}  // namespace relforge::ci_relay
