// Jobs over the store: state only moves forward, timestamps default to now, zombies time out.
#include "ci_relay/jobs.hpp"

#include <gtest/gtest.h>

#include "parts_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

class JobsTest : public ::testing::Test {
protected:
  JobUpdate update(const std::string& status, std::optional<std::string> conclusion = std::nullopt) {
    return {.key = {"v/serve", "ci", "test"},
            .run_id = 9,
            .run_attempt = 1,
            .head_sha = sha_of(1),
            .status = status,
            .conclusion = std::move(conclusion),
            .queued_at = std::nullopt,
            .started_at = std::nullopt,
            .completed_at = std::nullopt,
            .url = "",
            .runner = "",
            .source = "workflow_job",
            .github_job_id = std::nullopt};
  }
  std::unique_ptr<RelayStore> store = memory_store();
  RelayParts parts{*store, triage::default_rules().value()};
};

TEST_F(JobsTest, ALateInProgressDoesNotUndoACompletedJob) {
  ASSERT_TRUE(parts.jobs.upsert(update("completed", "success"), k_t0 + 10));
  ASSERT_TRUE(parts.jobs.upsert(update("in_progress"), k_t0 + 20));
  EXPECT_EQ(count(store->db(),
                  "SELECT COUNT(*) FROM jobs WHERE status = 'completed' AND conclusion = 'success' "
                  "AND completed_at = " +
                      std::to_string(k_t0 + 10) + " AND started_at = " + std::to_string(k_t0 + 20)),
            1);
}

TEST_F(JobsTest, ACompletedJobOnAnOrderedCommitIsAttributed) {
  add_commits(*store, 2);
  auto good = update("completed", "success");
  ASSERT_TRUE(parts.jobs.upsert(good, k_t0));
  auto bad = update("completed", "failure");
  bad.run_id = 10;
  bad.head_sha = sha_of(2);
  ASSERT_TRUE(parts.jobs.upsert(bad, k_t0 + 1));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM breakages WHERE culprit_sha = '" + sha_of(2) + "'"), 1);
}

TEST_F(JobsTest, InProgressJobsPastTheZombieLimitTimeOut) {
  ASSERT_TRUE(parts.jobs.upsert(update("in_progress"), k_t0));
  const std::int64_t limit = store->config().zombie_seconds;
  EXPECT_EQ(parts.jobs.sweep_zombies(k_t0 + limit).value_or(-1), 0);  // not older than the limit yet
  EXPECT_EQ(parts.jobs.sweep_zombies(k_t0 + limit + 1).value_or(-1), 1);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM jobs WHERE conclusion = 'timed_out'"), 1);
}

TEST_F(JobsTest, ACallbackForAnUnknownCommitIsRefusedAndWritesNothing) {
  const auto outcome =
      parts.jobs.report_result("v/accel",
                               R"({"upstream_sha":")" + sha_of(3) +
                                   R"(","workflow":"ci","job":"t","run_id":1,"status":"in_progress"})",
                               k_t0);
  EXPECT_EQ(outcome.http_status, 422) << outcome.message;
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM jobs"), 0);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM delivery_log"), 0);
}

// The key was "result:repo:run:attempt:workflow/job:status": workflow "build/linux" + job "test"
// and workflow "build" + job "linux/test" shared it, and the second got 503 on every retry. A
// webhook could also take a result's key first with its X-GitHub-Delivery.
TEST_F(JobsTest, ResultsOfDifferentJobsNeverShareAKey) {
  add_commits(*store, 1);
  // What an older relay's key looked like, stored by a webhook before the result arrives.
  const std::string squatted = "result:v/accel:7:1:build/linux/test:in_progress";
  ASSERT_EQ(parts.intake.intake({"push", squatted, push_payload(2, 2), k_t0}).outcome, IntakeOutcome::stored);
  for (const auto& [workflow, job] : std::vector<std::pair<std::string, std::string>>{
           {"build/linux", "test"}, {"build", "linux/test"}, {"build/linux/", "test"}}) {
    for (const char* status : {"in_progress", "completed"}) {
      nlohmann::json body = {{"upstream_sha", sha_of(1)},
                             {"workflow", workflow},
                             {"job", job},
                             {"run_id", 7},
                             {"status", status}};
      if (std::string(status) == "completed") body["conclusion"] = "success";
      const auto outcome = parts.jobs.report_result("v/accel", body.dump(), k_t0);
      EXPECT_EQ(outcome.http_status, 202)
          << workflow << " + " << job << " " << status << ": " << outcome.message;
    }
  }
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM jobs WHERE conclusion = 'success'"), 3);
  EXPECT_NE(result_delivery_id({"v/accel", "build/linux", "test"}, 7, 1, "completed"),
            result_delivery_id({"v/accel", "build", "linux/test"}, 7, 1, "completed"));
  const std::string key = result_delivery_id({"v/accel", "ci", "test"}, 7, 1, "completed");
  EXPECT_FALSE(is_header_token(key));  // no X-GitHub-Delivery intake accepts can equal it
}

}  // namespace
}  // namespace relforge::ci_relay
