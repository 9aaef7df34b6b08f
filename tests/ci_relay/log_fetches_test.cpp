// LogFetches over the store: a queued fetch's request, classification on success, retry and
// expiry on failure.
#include "ci_relay/log_fetches.hpp"

#include <gtest/gtest.h>

#include "ci_relay/query.hpp"
#include "parts_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

class LogFetchesTest : public ::testing::Test {
protected:
  void SetUp() override {
    exec(*store,
         "INSERT INTO jobs(repo, workflow, job, run_id, run_attempt, head_sha, status, conclusion, source, "
         "github_job_id) VALUES('v/vision', 'ci', 'build', 3, 1, '" +
             sha_of(1) + "', 'completed', 'failure', 'workflow_job', 31)");
    ASSERT_TRUE(logs.queue({.key = {"v/vision", "ci", "build"}, .run_id = 3, .run_attempt = 1}, k_t0));
  }
  LogRequest only_due(std::int64_t now) {
    auto due = logs.due(now, 10);
    EXPECT_TRUE(due);
    EXPECT_EQ(due ? due->size() : 0u, 1u);
    return due && !due->empty() ? due->front() : LogRequest{};
  }
  std::unique_ptr<RelayStore> store = memory_store();
  LogFetches logs{*store, triage::default_rules().value()};
};

TEST_F(LogFetchesTest, AQueuedFetchAsksGitHubWithTheRepositorysToken) {
  const auto request = only_due(k_t0);
  EXPECT_EQ(request.url, "http://127.0.0.1:1/repos/v/vision/actions/jobs/31/logs");
  EXPECT_EQ(request.token, "vision-token");
  EXPECT_EQ(request.github_job_id, 31);
  // Queued twice is queued once.
  ASSERT_TRUE(logs.queue({.key = {"v/vision", "ci", "build"}, .run_id = 3, .run_attempt = 1}, k_t0));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM log_fetches"), 1);
}

TEST_F(LogFetchesTest, AFetchedLogIsClassifiedAndTheFetchEnds) {
  const auto request = only_due(k_t0);
  ASSERT_TRUE(
      logs.record(request, {200, "step 1\nKilled\nProcess completed with exit code 137\n", ""}, k_t0));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM jobs WHERE classification IS NOT NULL"), 1);
  EXPECT_TRUE(logs.due(k_t0 + 100000, 10).value().empty());
}

// The matched line is stored as the log's bytes and read back as valid UTF-8.
TEST_F(LogFetchesTest, AFetchedLineThatIsNotUtf8IsReadWithReplacementCharacters) {
  const auto request = only_due(k_t0);
  const std::string line = "x.cpp:1:2: error: a\xFF b\xC3\x28 c\xC0\xAF d\xED\xA0\x80 e\xE2\x82";
  ASSERT_TRUE(logs.record(request, {200, "step 1\n" + line + "\r\nmore\n", ""}, k_t0));
  auto jobs = list_jobs(store->db(), {"v/vision", "", FailedOnly::yes, 10});
  ASSERT_TRUE(jobs) << jobs.error().describe();
  ASSERT_EQ(jobs->size(), 1U);
  ASSERT_TRUE(jobs->front().classification.has_value());
  EXPECT_EQ(jobs->front().classification->rule, "compile_error");
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(jobs->front().classification->line,
            "x.cpp:1:2: error: a" + r + " b" + r + "( c" + r + r + " d" + r + r + r + " e" + r + r);
  EXPECT_NO_THROW((void)to_json(jobs->front()).dump());
}

TEST_F(LogFetchesTest, AServerErrorIsRetriedLaterAndAnExpiredLogGivesUp) {
  const auto request = only_due(k_t0);
  ASSERT_TRUE(logs.record(request, {502, "", "bad gateway"}, k_t0));
  EXPECT_TRUE(logs.due(k_t0, 10).value().empty());
  const auto retry_at = count(store->db(), "SELECT next_attempt_at FROM log_fetches");
  ASSERT_EQ(only_due(retry_at).job_row, request.job_row);
  ASSERT_TRUE(logs.record(request, {410, "", "gone"}, retry_at));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM log_fetches WHERE state = 'failed' AND attempts = 2"),
            1);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM jobs WHERE classification IS NULL"), 1);
}

}  // namespace
}  // namespace relforge::ci_relay
