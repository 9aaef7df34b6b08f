#include "triage/flaky.hpp"

#include <gtest/gtest.h>

#include "triage/cluster.hpp"
#include "triage/disable_list.hpp"

namespace relforge::triage {
namespace {

TestResultRecord result(std::string test, std::string job, std::string commit, std::int64_t order,
                        std::int64_t attempt, std::int64_t sequence, TestOutcome outcome,
                        std::string platform = "linux") {
  TestResultRecord record;
  record.test = std::move(test);
  record.file = "test/test_ops.py";
  record.repo = "org/repo";
  record.job = std::move(job);
  record.platform = std::move(platform);
  record.commit = std::move(commit);
  record.commit_order = order;
  record.run_attempt = attempt;
  record.sequence = sequence;
  record.time = 1'700'000'000 + order * 600;
  record.outcome = outcome;
  return record;
}

constexpr auto pass = TestOutcome::passed;
constexpr auto red = TestOutcome::failed;

TEST(Flaky, FailedThenPassedInTheSameJob) {
  const auto flaky = find_flaky_tests({result("t (C)", "test (default)", "c1", 1, 1, 0, red),
                                       result("t (C)", "test (default)", "c1", 1, 1, 1, pass)});
  ASSERT_EQ(flaky.size(), 1u);
  ASSERT_EQ(flaky[0].evidence.size(), 1u);
  EXPECT_EQ(flaky[0].evidence[0].kind, FlakeKind::same_job);
  EXPECT_EQ(flaky[0].distinct_jobs, 1u);
}

TEST(Flaky, PassedThenFailedInTheSameJobIsARealFailure) {
  EXPECT_TRUE(
      find_flaky_tests({result("t (C)", "j", "c1", 1, 1, 0, pass), result("t (C)", "j", "c1", 1, 1, 1, red)})
          .empty());
}

TEST(Flaky, FailedThenPassedOnARerunOfTheSameCommit) {
  const auto flaky =
      find_flaky_tests({result("t (C)", "j", "c1", 1, 1, 0, red), result("t (C)", "j", "c1", 1, 2, 0, pass)});
  ASSERT_EQ(flaky.size(), 1u);
  EXPECT_EQ(flaky[0].evidence[0].kind, FlakeKind::rerun);
  EXPECT_NE(flaky[0].evidence[0].detail.find("attempt 1"), std::string::npos);
  EXPECT_NE(flaky[0].evidence[0].detail.find("attempt 2"), std::string::npos);
}

TEST(Flaky, SuccessFailureSuccessOnConsecutiveCommits) {
  const auto flaky = find_flaky_tests(
      {result("t (C)", "j", "c1", 1, 1, 0, pass), result("t (C)", "j", "c2", 2, 1, 0, red),
       result("t (C)", "j", "c3", 3, 1, 0, TestOutcome::skipped), result("t (C)", "j", "c4", 4, 1, 0, pass)});
  ASSERT_EQ(flaky.size(), 1u);
  EXPECT_EQ(flaky[0].evidence[0].kind, FlakeKind::consecutive_commits);
  EXPECT_EQ(flaky[0].evidence[0].commit, "c2");
}

TEST(Flaky, ABreakageThatStaysRedIsNotFlaky) {
  EXPECT_TRUE(
      find_flaky_tests({result("t (C)", "j", "c1", 1, 1, 0, pass), result("t (C)", "j", "c2", 2, 1, 0, red),
                        result("t (C)", "j", "c3", 3, 1, 0, red), result("t (C)", "j", "c4", 4, 1, 0, pass)})
          .empty());
  // Different jobs are different timelines: green in one job, red in another is not a flake.
  EXPECT_TRUE(
      find_flaky_tests({result("t (C)", "a", "c1", 1, 1, 0, pass), result("t (C)", "b", "c2", 2, 1, 0, red),
                        result("t (C)", "a", "c3", 3, 1, 0, pass)})
          .empty());
}

TEST(Flaky, JUnitRerunsBecomeFailuresBeforeTheOutcome) {
  JUnitCase test;
  test.name = "test_conv";
  test.classname = "TestOps";
  test.failed_reruns = 2;
  TestResultRecord base;
  base.job = "j";
  base.commit = "c";
  const auto records = records_from_junit({test}, base);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].outcome, TestOutcome::failed);
  EXPECT_EQ(records[2].outcome, TestOutcome::passed);
  EXPECT_LT(records[0].sequence, records[2].sequence);
  EXPECT_EQ(find_flaky_tests(records).size(), 1u);
}

std::vector<TestResultRecord> flaked_in_jobs(const std::string& test, int jobs,
                                             const std::string& platform = "linux") {
  std::vector<TestResultRecord> out;
  for (int i = 0; i < jobs; ++i) {
    const std::string commit = "c" + std::to_string(i);
    out.push_back(result(test, "test (default)", commit, i, 1, 0, red, platform));
    out.push_back(result(test, "test (default)", commit, i, 1, 1, pass, platform));
  }
  return out;
}

// A day after the flakes of flaked_in_jobs.
constexpr std::int64_t k_day_after = 1'700'000'000 + k_day_seconds;

TEST(DisableList, DisablesAfterMoreThanTwoDistinctJobs) {
  auto results = flaked_in_jobs("twice (C)", 2);
  auto more = flaked_in_jobs("thrice (C)", 3, "windows");
  results.insert(results.end(), more.begin(), more.end());
  const auto change =
      update_disable_list({}, find_flaky_tests(results), results, DisablePolicy{}, k_day_after);
  ASSERT_EQ(change.list.size(), 1u);
  EXPECT_EQ(change.list[0].test, "thrice (C)");
  EXPECT_EQ(change.list[0].platforms, std::vector<std::string>{"windows"});
  EXPECT_EQ(change.list[0].issue_title, "DISABLED thrice (C)");
  EXPECT_NE(change.list[0].issue_body.find("failed then passed"), std::string::npos);
  EXPECT_EQ(change.added, std::vector<std::string>{"thrice (C)"});
}

TEST(DisableList, MoreThanFourInOneFileShareAnAggregateIssue) {
  std::vector<TestResultRecord> results;
  for (int t = 0; t < 5; ++t) {
    auto more = flaked_in_jobs("t" + std::to_string(t) + " (C)", 3);
    results.insert(results.end(), more.begin(), more.end());
  }
  const auto change =
      update_disable_list({}, find_flaky_tests(results), results, DisablePolicy{}, k_day_after);
  ASSERT_EQ(change.list.size(), 5u);
  EXPECT_EQ(change.list[0].issue_title, "DISABLED MULTIPLE tests in test/test_ops.py (5 tests)");
}

TEST(DisableList, ReenablesAfterEnoughCleanRunsAndQuietDays) {
  const std::int64_t now = 1'800'000'000;
  DisabledTest disabled;
  disabled.test = "t (C)";
  disabled.disabled_at = now - 20 * k_day_seconds;
  DisablePolicy policy;
  policy.reenable_green_runs = 3;
  std::vector<TestResultRecord> green;
  for (int i = 0; i < 3; ++i) {
    auto record = result("t (C)", "j", "g" + std::to_string(i), 100 + i, 1, 0, pass);
    record.time = now - k_day_seconds;
    green.push_back(record);
  }
  auto change = update_disable_list({disabled}, {}, green, policy, now);
  EXPECT_TRUE(change.list.empty());
  EXPECT_EQ(change.reenabled, std::vector<std::string>{"t (C)"});

  // One red run in the window keeps it disabled.
  auto with_red = green;
  with_red.push_back(with_red.back());
  with_red.back().outcome = red;
  change = update_disable_list({disabled}, {}, with_red, policy, now);
  EXPECT_EQ(change.list.size(), 1u);
  // Too recently disabled (under 14 quiet days) keeps it too.
  disabled.disabled_at = now - 3 * k_day_seconds;
  change = update_disable_list({disabled}, {}, green, policy, now);
  EXPECT_EQ(change.list.size(), 1u);
}

TEST(DisableList, AReenabledTestIsNotDisabledAgainByItsOldFlakesButByANewOne) {
  // Flakes 20 days ago disabled it; it has been green and quiet since, and is re-enabled. The
  // next run still sees those flakes (results are read for 30 days) and must not disable it again.
  const std::int64_t now = 1'700'000'000 + 20 * k_day_seconds;
  auto results = flaked_in_jobs("t (C)", 3);
  DisablePolicy policy;
  policy.reenable_green_runs = 3;
  for (int i = 0; i < 3; ++i) {
    auto record = result("t (C)", "test (default)", "g" + std::to_string(i), 100 + i, 1, 0, pass);
    record.time = now - k_day_seconds;
    results.push_back(record);
  }
  DisabledTest disabled;
  disabled.test = "t (C)";
  disabled.disabled_at = 1'700'000'000 + k_day_seconds;
  auto change = update_disable_list({disabled}, find_flaky_tests(results), results, policy, now);
  EXPECT_EQ(change.reenabled, std::vector<std::string>{"t (C)"});
  EXPECT_TRUE(change.list.empty());
  change = update_disable_list(change.list, find_flaky_tests(results), results, policy, now + 60);
  EXPECT_TRUE(change.added.empty());
  EXPECT_TRUE(change.list.empty());

  // A new flake, in a job of its own, and the three distinct jobs disable it again.
  auto flake = result("t (C)", "test (default)", "n1", 200, 1, 0, red);
  flake.time = now + 120;
  auto rerun = flake;
  rerun.sequence = 1;
  rerun.outcome = pass;
  results.push_back(flake);
  results.push_back(rerun);
  change = update_disable_list(change.list, find_flaky_tests(results), results, policy, now + 180);
  EXPECT_EQ(change.added, std::vector<std::string>{"t (C)"});
}

TEST(DisableList, RoundTripsThroughJson) {
  DisabledTest entry{"t (C)", "test/x.py", {"linux", "rocm"}, "DISABLED t (C)", "body", 42};
  const auto text = disable_list_to_json({entry}).dump();
  auto back = disable_list_from_json(text, "disabled-tests.json");
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].platforms, entry.platforms);
  EXPECT_EQ((*back)[0].disabled_at, 42);
  EXPECT_FALSE(disable_list_from_json("[1,2]", "d.json"));
  EXPECT_FALSE(disable_list_from_json("{oops", "d.json"));
}

}  // namespace
}  // namespace relforge::triage
