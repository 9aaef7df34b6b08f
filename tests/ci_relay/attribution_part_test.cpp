// Attribution over the store: breakages written from job rows on ordered commits, kept while they
// narrow, closed by a fix, and never for L1 repositories.
#include "ci_relay/breakages.hpp"

#include <gtest/gtest.h>

#include "parts_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

class AttributionTest : public ::testing::Test {
protected:
  void SetUp() override { add_commits(*store, 6); }
  void job(const std::string& repo, int commit, const std::string& conclusion) {
    exec(*store,
         "INSERT INTO jobs(repo, workflow, job, run_id, run_attempt, head_sha, status, conclusion, "
         "source) VALUES('" +
             repo + "', 'ci', 'test', " + std::to_string(commit) + ", 1, '" + sha_of(commit) +
             "', 'completed', '" + conclusion + "', 'workflow_job')");
  }
  std::unique_ptr<RelayStore> store = memory_store();
  Attribution attribution{*store};
};

TEST_F(AttributionTest, AGoodToBadStepOpensABreakageThatKeepsItsIdentityAsItNarrowsAndCloses) {
  job("v/accel", 1, "success");
  job("v/accel", 4, "failure");
  ASSERT_TRUE(attribution.attribute({"v/accel", "ci", "test"}, k_t0));
  EXPECT_EQ(count(store->db(), "SELECT suspects FROM breakages WHERE state = 'open'"), 3);
  const auto id = count(store->db(), "SELECT id FROM breakages");

  job("v/accel", 3, "success");  // narrows the range to commit 4 alone
  ASSERT_TRUE(attribution.attribute({"v/accel", "ci", "test"}, k_t0 + 100));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM breakages"), 1);
  EXPECT_EQ(count(store->db(), "SELECT id FROM breakages WHERE suspects = 1 AND culprit_sha = '" + sha_of(4) +
                                   "' AND opened_at = " + std::to_string(k_t0)),
            id);

  job("v/accel", 6, "success");  // the fix
  ASSERT_TRUE(attribution.attribute({"v/accel", "ci", "test"}, k_t0 + 200));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM breakages WHERE state = 'closed' AND fixed_sha = '" +
                                   sha_of(6) + "' AND closed_at = " + std::to_string(k_t0 + 200)),
            1);
}

TEST_F(AttributionTest, EvidenceThatNoLongerShowsABreakageRetractsIt) {
  job("v/accel", 1, "success");
  job("v/accel", 2, "failure");
  ASSERT_TRUE(attribution.attribute({"v/accel", "ci", "test"}, k_t0));
  exec(*store, "UPDATE jobs SET conclusion = 'success' WHERE run_id = 2");
  ASSERT_TRUE(attribution.attribute({"v/accel", "ci", "test"}, k_t0 + 1));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM breakages WHERE state = 'retracted'"), 1);
}

TEST_F(AttributionTest, OnboardingRepositoriesAreNeverAttributed) {
  job("v/onboard", 1, "success");
  job("v/onboard", 2, "failure");
  ASSERT_TRUE(attribution.attribute({"v/onboard", "ci", "test"}, k_t0));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM breakages"), 0);
}

TEST_F(AttributionTest, ACommitOrderedLateReattributesEveryJobOnIt) {
  job("v/accel", 1, "success");
  job("v/vision", 1, "success");
  job("v/accel", 2, "failure");
  job("v/vision", 2, "failure");
  ASSERT_TRUE(attribution.attribute_shas({sha_of(2)}, k_t0));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(DISTINCT repo) FROM breakages WHERE state = 'open'"), 2);
}

}  // namespace
}  // namespace relforge::ci_relay
