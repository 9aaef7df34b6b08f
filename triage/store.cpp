#include "triage/store.hpp"

#include <nlohmann/json.hpp>

namespace relforge::triage {
namespace {

const std::vector<std::string> k_migrations = {
    R"(CREATE TABLE failures (
         id INTEGER PRIMARY KEY,
         repo TEXT NOT NULL, job TEXT NOT NULL, commit_sha TEXT NOT NULL, time INTEGER NOT NULL,
         rule TEXT NOT NULL, category TEXT NOT NULL, flaky INTEGER NOT NULL,
         line TEXT NOT NULL, line_num INTEGER NOT NULL, captures TEXT NOT NULL,
         cluster_key TEXT NOT NULL, cluster_id TEXT NOT NULL, algorithm TEXT NOT NULL);
       CREATE INDEX failures_time ON failures(time);
       CREATE TABLE test_results (
         id INTEGER PRIMARY KEY,
         test TEXT NOT NULL, file TEXT NOT NULL, repo TEXT NOT NULL, job TEXT NOT NULL,
         platform TEXT NOT NULL, commit_sha TEXT NOT NULL, commit_order INTEGER NOT NULL,
         run_attempt INTEGER NOT NULL, sequence INTEGER NOT NULL, time INTEGER NOT NULL,
         outcome TEXT NOT NULL);
       CREATE INDEX test_results_time ON test_results(time);)",
};

TestOutcome parse_outcome(const std::string& text) {
  if (text == "failed") return TestOutcome::failed;
  if (text == "error") return TestOutcome::error;
  if (text == "skipped") return TestOutcome::skipped;
  return TestOutcome::passed;
}

}  // namespace

Result<TriageStore> TriageStore::open(const std::filesystem::path& path) {
  auto db = platform::Database::open(path);
  if (!db)
    return tl::unexpected(Error(db.error()).with_context("opening the triage database " + path.string()));
  if (auto ok = db->migrate(k_migrations); !ok) {
    return tl::unexpected(Error(ok.error()).with_context("migrating the triage database " + path.string()));
  }
  return TriageStore(std::move(*db));
}

Status TriageStore::add_failure(const FailureRecord& failure, const RuleMatch& match) {
  auto statement = m_db.prepare(
      "INSERT INTO failures (repo, job, commit_sha, time, rule, category, flaky, line, line_num, captures, "
      "cluster_key, cluster_id, algorithm) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  if (!statement) return tl::unexpected(statement.error());
  const std::string key = cluster_key(failure.reason);
  statement->bind(1, failure.repo)
      .bind(2, failure.job)
      .bind(3, failure.commit)
      .bind(4, static_cast<std::int64_t>(failure.time))
      .bind(5, match.rule)
      .bind(6, match.category)
      .bind(7, static_cast<std::int64_t>(match.flaky ? 1 : 0))
      .bind(8, failure.reason)
      .bind(9, static_cast<std::int64_t>(match.line_num))
      .bind(10, nlohmann::json(match.captures).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .bind(11, key)
      .bind(12, cluster_id(key))
      .bind(13, k_cluster_algorithm);
  return statement->run();
}

Result<std::vector<FailureRecord>> TriageStore::failures_since(std::int64_t since) {
  auto statement = m_db.prepare(
      "SELECT repo, job, commit_sha, time, rule, line FROM failures WHERE time >= ?1 ORDER BY id");
  if (!statement) return tl::unexpected(statement.error());
  statement->bind(1, since);
  std::vector<FailureRecord> out;
  while (true) {
    auto row = statement->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    out.push_back({statement->column_text(0), statement->column_text(1), statement->column_text(2),
                   statement->column_int(3), statement->column_text(4), statement->column_text(5)});
  }
  return out;
}

Status TriageStore::add_results(const std::vector<TestResultRecord>& results) {
  auto transaction = platform::Transaction::begin(m_db);
  if (!transaction) return tl::unexpected(transaction.error());
  auto statement = m_db.prepare(
      "INSERT INTO test_results (test, file, repo, job, platform, commit_sha, commit_order, run_attempt, "
      "sequence, "
      "time, outcome) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  if (!statement) return tl::unexpected(statement.error());
  for (const auto& record : results) {
    statement->reset();
    statement->bind(1, record.test)
        .bind(2, record.file)
        .bind(3, record.repo)
        .bind(4, record.job)
        .bind(5, record.platform)
        .bind(6, record.commit)
        .bind(7, record.commit_order)
        .bind(8, record.run_attempt)
        .bind(9, record.sequence)
        .bind(10, record.time)
        .bind(11, outcome_name(record.outcome));
    if (auto ok = statement->run(); !ok) return ok;
  }
  return transaction->commit();
}

Result<std::vector<TestResultRecord>> TriageStore::results_since(std::int64_t since) {
  auto statement = m_db.prepare(
      "SELECT test, file, repo, job, platform, commit_sha, commit_order, run_attempt, sequence, time, "
      "outcome "
      "FROM test_results WHERE time >= ?1 ORDER BY id");
  if (!statement) return tl::unexpected(statement.error());
  statement->bind(1, since);
  std::vector<TestResultRecord> out;
  while (true) {
    auto row = statement->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    TestResultRecord record;
    record.test = statement->column_text(0);
    record.file = statement->column_text(1);
    record.repo = statement->column_text(2);
    record.job = statement->column_text(3);
    record.platform = statement->column_text(4);
    record.commit = statement->column_text(5);
    record.commit_order = statement->column_int(6);
    record.run_attempt = statement->column_int(7);
    record.sequence = statement->column_int(8);
    record.time = statement->column_int(9);
    record.outcome = parse_outcome(statement->column_text(10));
    out.push_back(std::move(record));
  }
  return out;
}

}  // namespace relforge::triage
