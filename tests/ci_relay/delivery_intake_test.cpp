// DeliveryIntake on its own store: group commits, duplicates inside a batch, and the scan hand-off
// to the normaliser.
#include "ci_relay/intake.hpp"

#include <gtest/gtest.h>

#include "parts_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

class DeliveryIntakeTest : public ::testing::Test {
protected:
  std::unique_ptr<RelayStore> store = memory_store();
  RelayParts parts{*store, triage::default_rules().value()};
};

TEST_F(DeliveryIntakeTest, ADuplicateInsideOneBatchIsStoredOnce) {
  const std::vector<Delivery> batch = {{"push", "same", push_payload(1, 1), k_t0},
                                       {"push", "same", push_payload(1, 1), k_t0 + 1}};
  const auto answers = parts.intake.intake_batch(
      batch, {scan_delivery("push", batch[0].body), scan_delivery("push", batch[1].body)});
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].outcome, IntakeOutcome::stored);
  EXPECT_EQ(answers[1].outcome, IntakeOutcome::duplicate);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM delivery_log"), 1);
}

TEST_F(DeliveryIntakeTest, ScannedWorkflowJobFieldsReachTheNormaliserWhichSkipsTheBody) {
  const std::string body = job_payload("v/accel", "ci", "test", 7, 1, sha_of(1), "completed", "success");
  const std::vector<Delivery> batch = {{"workflow_job", "wj-1", body, k_t0}};
  const auto answers = parts.intake.intake_batch(batch, {scan_delivery("workflow_job", body)});
  ASSERT_EQ(answers.at(0).outcome, IntakeOutcome::stored) << answers[0].message;
  EXPECT_EQ(parts.normaliser.scanned(), 1u);
  auto pending = parts.normaliser.fetch(10);
  ASSERT_TRUE(pending) << pending.error().describe();
  ASSERT_EQ(pending->rows.size(), 1u);
  ASSERT_TRUE(pending->rows[0].job);
  EXPECT_EQ(pending->rows[0].job->name, "test");
  EXPECT_TRUE(pending->rows[0].body.empty());  // read at intake, not again
  EXPECT_EQ(parts.normaliser.scanned(), 0u);   // handed out: the cache lets go
}

TEST_F(DeliveryIntakeTest, AnIgnoredEventIsSettledAndCountedAtIntake) {
  const auto answer =
      parts.intake.intake({"star", "s-1", R"({"repository":{"full_name":"up/runtime"}})", k_t0});
  EXPECT_EQ(answer.outcome, IntakeOutcome::ignored);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM delivery_outcomes WHERE state = 'ignored'"), 1);
  EXPECT_EQ(count(store->db(), "SELECT value FROM counters WHERE name = 'unknown_event:star'"), 1);
}

TEST_F(DeliveryIntakeTest, AFailedInsertMakesTheWholeBatchUnavailable) {
  exec(*store, "DROP TABLE dead_letters");  // the malformed delivery's insert fails
  const std::vector<Delivery> batch = {{"push", "ok", push_payload(1, 1), k_t0},
                                       {"push", "bad", "not json", k_t0}};
  const auto answers = parts.intake.intake_batch(
      batch, {scan_delivery("push", batch[0].body), scan_delivery("push", batch[1].body)});
  ASSERT_EQ(answers.size(), 2u);
  for (const auto& answer : answers) EXPECT_EQ(answer.outcome, IntakeOutcome::unavailable);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM delivery_log"), 0);  // rolled back with it
}

}  // namespace
}  // namespace relforge::ci_relay
