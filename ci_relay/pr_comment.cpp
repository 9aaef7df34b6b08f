#include "ci_relay/pr_comment.hpp"

#include <algorithm>
#include <map>

#include "ci_relay/query.hpp"

namespace relforge::ci_relay {
namespace {

constexpr std::int64_t k_day = 24 * 3600;

// How a job's repository weighs on merging; nullopt: its results are not shown (L1).
std::optional<triage::Gate> gate_of(const RelayConfig* config, const std::string& repo) {
  if (config == nullptr || config->is_upstream(repo)) return triage::Gate::dr_ci;
  const DownstreamRepo* d = config->find(repo);
  if (d == nullptr || d->tier == Tier::l1) return std::nullopt;
  return d->tier == Tier::l4 ? triage::Gate::required : triage::Gate::advisory;
}

// Latest attempt per job name; `author` and `time` fill in what the rows do not carry.
Result<std::vector<triage::PrJob>> jobs_where(platform::Database& db, const RelayConfig* config,
                                              const std::string& condition,
                                              const std::vector<std::string>& texts,
                                              const std::vector<std::int64_t>& numbers) {
  auto stmt = db.prepare(
      std::string("SELECT j.repo || ' · ' || j.workflow || ' / ' || j.job, j.head_sha, "
                  "COALESCE(j.conclusion, ''), COALESCE(j.runner_name, ''), "
                  "COALESCE(j.url, ''), COALESCE(c.author, ''), "
                  "COALESCE(j.completed_at, c.committed_at, 0), ") +
      "j.classification, j.classification_category, j.classification_line, "
      "j.classification_line_num, j.classification_captures, j.classification_flaky, j.repo, j.source "
      "FROM jobs j LEFT JOIN commits c ON c.sha = j.head_sha WHERE " +
      condition + " ORDER BY j.run_id, j.run_attempt, j.id");
  if (!stmt) return tl::unexpected(stmt.error());
  int index = 1;
  for (const auto& t : texts) stmt->bind(index++, t);
  for (const auto n : numbers) stmt->bind(index++, n);
  std::map<std::pair<std::string, std::string>, triage::PrJob> latest;  // (sha, name) → job
  for (;;) {
    auto row = stmt->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    const auto gate = gate_of(config, stmt->column_text(13));
    if (!gate) continue;
    triage::PrJob job;
    job.gate = *gate;
    job.name = stmt->column_text(0);
    job.commit = stmt->column_text(1);
    job.conclusion = stmt->column_text(2);
    job.runner_name = stmt->column_text(3);
    job.url = stmt->column_text(4);
    job.author = stmt->column_text(5);
    job.time = stmt->column_int(6);
    job.origin =
        stmt->column_text(14) == "callback" ? triage::JobOrigin::callback : triage::JobOrigin::runner;
    if (auto c = read_classification(*stmt, 7)) {
      job.rule = c->rule;
      job.line = c->line;
      job.captures = c->captures;
      job.rule_flaky = c->flaky;
    }
    latest[{job.commit, job.name}] = std::move(job);
  }
  std::vector<triage::PrJob> out;
  for (auto& [key, job] : latest) out.push_back(std::move(job));
  return out;
}

}  // namespace

Result<PrReport> pr_report(platform::Database& db, std::int64_t number, const RelayConfig* config) {
  PrReport report;
  report.number = number;
  {
    auto stmt = db.prepare("SELECT head_sha, base_sha, author FROM pull_requests WHERE number = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    auto row = stmt->bind(1, number).step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) {
      return fail(ErrorCategory::not_found,
                  "no pull request #" + std::to_string(number) +
                      " has been received (the relay needs its pull_request event)");
    }
    report.head_sha = stmt->column_text(0);
    report.base_sha = stmt->column_text(1);
    report.author = stmt->column_text(2);
  }
  triage::PrInput input;
  input.pr_author = report.author;
  auto head = jobs_where(db, config, "j.head_sha = ?1", {report.head_sha}, {});
  if (!head) return tl::unexpected(head.error());
  if (head->empty()) {
    return fail(ErrorCategory::nothing_selected, "pull request #" + std::to_string(number) +
                                                     ": no downstream job has reported on its head " +
                                                     report.head_sha);
  }
  for (auto& job : *head) {
    job.author = report.author;
    input.head_time = std::max(input.head_time, job.time);
  }
  input.head_jobs = std::move(*head);
  auto base = jobs_where(db, config, "j.head_sha = ?1", {report.base_sha}, {});
  if (!base) return tl::unexpected(base.error());
  input.base_jobs = std::move(*base);
  input.base_time = input.head_time;
  {
    auto stmt = db.prepare("SELECT committed_at FROM commits WHERE sha = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    auto row = stmt->bind(1, report.base_sha).step();
    if (!row) return tl::unexpected(row.error());
    if (*row) input.base_time = stmt->column_int(0);
  }
  auto trunk =
      jobs_where(db, config, "c.sha IS NOT NULL AND j.head_sha NOT IN (?1, ?2) AND c.committed_at >= ?3",
                 {report.head_sha, report.base_sha}, {input.base_time - k_day});
  if (!trunk) return tl::unexpected(trunk.error());
  input.trunk_jobs = std::move(*trunk);
  {
    auto stmt =
        db.prepare("SELECT number, title FROM issues WHERE state = 'open' AND trusted = 1 ORDER BY number");
    if (!stmt) return tl::unexpected(stmt.error());
    for (;;) {
      auto row = stmt->step();
      if (!row) return tl::unexpected(row.error());
      if (!*row) break;
      triage::add_issue(input, {stmt->column_int(0), stmt->column_text(1)});
    }
  }
  report.verdicts = triage::classify_pr(input);
  report.markdown = triage::pr_comment_markdown(report.verdicts, report.head_sha, report.base_sha);
  return report;
}

}  // namespace relforge::ci_relay
