// Normaliser on its own store: the cursor, stale batches, per-row rejection and settled notes.
#include "ci_relay/normaliser.hpp"

#include <gtest/gtest.h>

#include "parts_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

class NormaliserTest : public ::testing::Test {
protected:
  void store_delivery(const std::string& event, const std::string& id, const std::string& body) {
    const auto answer = parts.intake.intake({event, id, body, k_t0});
    ASSERT_EQ(answer.outcome, IntakeOutcome::stored) << answer.message;
  }
  std::unique_ptr<RelayStore> store = memory_store();
  RelayParts parts{*store, triage::default_rules().value()};
};

TEST_F(NormaliserTest, ABatchFetchedBeforeTheCursorMovedIsNotAppliedTwice) {
  store_delivery("push", "p1", push_payload(1, 3));
  auto stale = parts.normaliser.fetch(10);
  ASSERT_TRUE(stale);
  ASSERT_EQ(parts.normaliser.process_pending().value_or(-1), 1);
  Normaliser::prepare(*stale);
  EXPECT_EQ(parts.normaliser.apply(*stale).value_or(-1), 0);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM commits"), 3);
  EXPECT_EQ(count(store->db(), "SELECT upto FROM normalise_cursor"), 1);
}

TEST_F(NormaliserTest, AnUnusablePayloadIsRejectedAloneAndTheBatchGoesOn) {
  store_delivery("workflow_job", "bad", R"({"repository":{"full_name":"v/accel"},"workflow_job":{"id":1}})");
  store_delivery("push", "good", push_payload(1, 2));
  ASSERT_EQ(parts.normaliser.process_pending().value_or(-1), 2);
  EXPECT_EQ(count(store->db(),
                  "SELECT COUNT(*) FROM delivery_outcomes WHERE state = 'rejected' AND note LIKE "
                  "'%run_id, name or head_sha is missing%'"),
            1);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM commits"), 2);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM jobs"), 0);
}

TEST_F(NormaliserTest, APushToAnotherBranchIsIgnoredSayingWhich) {
  auto body = nlohmann::json::parse(push_payload(1, 1));
  body["ref"] = "refs/heads/feature";
  store_delivery("push", "branch", body.dump());
  ASSERT_EQ(parts.normaliser.process_pending().value_or(-1), 1);
  EXPECT_EQ(count(store->db(),
                  "SELECT COUNT(*) FROM delivery_outcomes WHERE state = 'ignored' AND note = "
                  "'push to refs/heads/feature, not the tracked branch refs/heads/main'"),
            1);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM commits"), 0);
}

TEST_F(NormaliserTest, AFailedJobQueuesItsLogOnlyWhenLogsAreFetched) {
  store_delivery("workflow_job", "f1",
                 job_payload("v/accel", "ci", "test", 5, 1, sha_of(1), "completed", "failure"));
  ASSERT_EQ(parts.normaliser.process_pending().value_or(-1), 1);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM log_fetches WHERE github_job_id = 51"), 1);

  RelayConfig config = scenario_config();
  config.fetch_logs = FetchLogs::no;
  auto quiet = memory_store(config);
  RelayParts without_logs{*quiet, triage::default_rules().value()};
  ASSERT_EQ(without_logs.intake
                .intake({"workflow_job", "f1",
                         job_payload("v/accel", "ci", "test", 5, 1, sha_of(1), "completed", "failure"), k_t0})
                .outcome,
            IntakeOutcome::stored);
  ASSERT_EQ(without_logs.normaliser.process_pending().value_or(-1), 1);
  EXPECT_EQ(count(quiet->db(), "SELECT COUNT(*) FROM jobs"), 1);
  EXPECT_EQ(count(quiet->db(), "SELECT COUNT(*) FROM log_fetches"), 0);
}

// A signed push is still not trusted: a commit that is its own parent (or a ring of them) must
// end the first-parent walk, not loop forever under the database lock.
TEST_F(NormaliserTest, APushWhoseCommitsFormACycleIsOrderedOnceAndTheRelayGoesOn) {
  store_delivery("push", "p1", push_payload(1, 1));
  const nlohmann::json self_parented = {
      {"ref", "refs/heads/main"},
      {"before", sha_of(1)},
      {"after", sha_of(2)},
      {"repository", {{"full_name", "up/runtime"}}},
      {"commits", {{{"id", sha_of(2)}, {"message", "m"}, {"parents", {sha_of(2)}}}}}};
  store_delivery("push", "self", self_parented.dump());
  const nlohmann::json ring = {
      {"ref", "refs/heads/main"},
      {"before", sha_of(2)},
      {"after", sha_of(4)},
      {"repository", {{"full_name", "up/runtime"}}},
      {"commits",
       {{{"id", sha_of(3)}, {"parents", {sha_of(4)}}}, {{"id", sha_of(4)}, {"parents", {sha_of(3)}}}}}};
  store_delivery("push", "ring", ring.dump());
  ASSERT_EQ(parts.normaliser.process_pending().value_or(-1), 3);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM commits"), 4);
  EXPECT_EQ(count(store->db(), "SELECT seq FROM commits WHERE sha = '" + sha_of(2) + "'"), 2);
  EXPECT_EQ(count(store->db(), "SELECT upto FROM normalise_cursor"), 3);
}

// The walk indexes the commits once: a 20,000-commit push is linear, not seconds of lock.
TEST_F(NormaliserTest, AVeryLongPushIsOrderedByItsParents) {
  constexpr int k_commits = 20'000;
  nlohmann::json commits = nlohmann::json::array();
  for (int n = 1; n <= k_commits; ++n) {
    commits.push_back(
        {{"id", sha_of(n)},
         {"parents", n == 1 ? nlohmann::json::array() : nlohmann::json::array({sha_of(n - 1)})}});
  }
  const nlohmann::json push = {{"ref", "refs/heads/main"},
                               {"before", std::string(40, '0')},
                               {"after", sha_of(k_commits)},
                               {"repository", {{"full_name", "up/runtime"}}},
                               {"commits", commits}};
  store_delivery("push", "long", push.dump());
  ASSERT_EQ(parts.normaliser.process_pending().value_or(-1), 1);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM commits"), k_commits);
  EXPECT_EQ(count(store->db(), "SELECT seq FROM commits WHERE sha = '" + sha_of(k_commits) + "'"), k_commits);
}

}  // namespace
}  // namespace relforge::ci_relay
