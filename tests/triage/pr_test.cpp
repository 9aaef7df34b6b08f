#include "triage/pr.hpp"

#include <gtest/gtest.h>

#include "triage/cluster.hpp"

namespace relforge::triage {
namespace {

constexpr std::int64_t k_base_time = 1'700'000'000;

PrJob job(std::string name, std::string commit, std::string conclusion, std::vector<std::string> captures,
          std::string rule = "gtest_failure") {
  PrJob out;
  out.name = std::move(name);
  out.commit = std::move(commit);
  out.conclusion = std::move(conclusion);
  out.captures = std::move(captures);
  out.rule = std::move(rule);
  out.line = "[  FAILED  ] x";
  out.runner_name = "linux-runner-1";
  out.author = "someone";
  out.time = k_base_time;
  return out;
}

PrInput input_with(std::vector<PrJob> head, std::vector<PrJob> base) {
  PrInput input;
  input.head_jobs = std::move(head);
  input.base_jobs = std::move(base);
  input.pr_author = "pr-author";
  input.base_time = k_base_time;
  input.head_time = k_base_time + 3600;
  return input;
}

TEST(Pr, ShardSuffixIsRemoved) {
  EXPECT_EQ(job_base_name("test (default, 1, 4, linux.2xlarge)"), "test (default)");
  EXPECT_EQ(job_base_name("build (linux)"), "build (linux)");
}

TEST(Pr, BrokenTrunkWhenTheBaseFailedWithEqualCaptures) {
  const auto verdicts =
      classify_pr(input_with({job("test (default, 1, 4, linux.2xlarge)", "head", "failure", {"Ops.Add"})},
                             {job("test (default, 2, 4, linux.2xlarge)", "base", "failure", {"Ops.Add"})}));
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::broken_trunk);
  EXPECT_NE(verdicts[0].evidence.find("base"), std::string::npos);
}

TEST(Pr, OneDifferingCaptureIsNotBrokenTrunk) {
  const auto verdicts =
      classify_pr(input_with({job("test (default)", "head", "failure", {"a.cpp", "12", "boom"})},
                             {job("test (default)", "base", "failure", {"a.cpp", "13", "boom"})}));
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::new_failure);
}

TEST(Pr, JobAbsentOnTheBaseIsUnclassified) {
  const auto verdicts = classify_pr(input_with({job("test (new-config)", "head", "failure", {"Ops.Add"})},
                                               {job("test (default)", "base", "success", {})}));
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::unclassified);
}

TEST(Pr, GenericCapturesNeverMatchTheBase) {
  const auto verdicts = classify_pr(input_with(
      {job("test (default)", "head", "failure", {"Process completed with exit code 1"}, "gha_error")},
      {job("test (default)", "base", "failure", {"Process completed with exit code 1"}, "gha_error")}));
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::new_failure);
}

TEST(Pr, FlakyRuleInfraUnstableCancelledAndTimedOut) {
  auto lost = job("test (default)", "head", "failure", {"ci-gpu-7"}, "runner_lost");
  lost.rule_flaky = true;
  auto infra = job("build (linux)", "head", "failure", {}, "");
  infra.runner_name.clear();
  auto timed_out = job("test (slow)", "head", "timed_out", {"Ops.Slow"});
  const auto verdicts = classify_pr(
      input_with({lost, infra, job("test (unstable-cuda)", "head", "failure", {"X.Y"}),
                  job("docs", "head", "cancelled", {}), timed_out, job("lint", "head", "success", {})},
                 {job("test (default)", "base", "success", {}), job("test (slow)", "base", "success", {})}));
  ASSERT_EQ(verdicts.size(), 5u);  // the successful lint job is not listed
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::flaky);
  EXPECT_EQ(verdicts[1].verdict, PrVerdict::flaky);
  EXPECT_EQ(verdicts[2].verdict, PrVerdict::unstable);
  EXPECT_EQ(verdicts[3].verdict, PrVerdict::cancelled);
  EXPECT_EQ(verdicts[4].verdict, PrVerdict::new_failure);  // timed out, classified like a failure
}

TEST(Pr, LintIsNeverBrokenTrunk) {
  const auto verdicts = classify_pr(input_with({job("lint", "head", "failure", {"flake8 E501"})},
                                               {job("lint", "base", "failure", {"flake8 E501"})}));
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::new_failure);
}

TEST(Pr, SimilarFailureElsewhereNeedsAnotherAuthorAndTheWindow) {
  auto input = input_with({job("test (default)", "head", "failure", {"Ops.Flaky"})},
                          {job("test (default)", "base", "success", {})});
  auto elsewhere = job("test (other)", "c9", "failure", {"Ops.Flaky"});
  elsewhere.author = "pr-author";
  input.trunk_jobs = {elsewhere};
  EXPECT_EQ(classify_pr(input)[0].verdict, PrVerdict::new_failure);  // same author: not evidence
  input.trunk_jobs[0].author = "other-person";
  EXPECT_EQ(classify_pr(input)[0].verdict, PrVerdict::flaky);
  input.head_time = k_base_time + 8 * k_day_seconds;  // window over 7 days: no search
  EXPECT_EQ(classify_pr(input)[0].verdict, PrVerdict::new_failure);
}

TEST(Pr, DisabledTestIsFlaky) {
  auto input = input_with({job("test (default)", "head", "failure", {"test_a (TestX)"}, "pytest_failure")},
                          {job("test (default)", "base", "success", {})});
  input.disabled_tests = {"test_a (TestX)"};
  EXPECT_EQ(classify_pr(input)[0].verdict, PrVerdict::flaky);
}

TEST(Pr, CommentBodySaysWhetherToMerge) {
  auto base = job("test (default)", "base", "failure", {"Ops.Add"});
  auto verdicts = classify_pr(input_with({job("test (default)", "head", "failure", {"Ops.Add"})}, {base}));
  auto md = pr_comment_markdown(verdicts, "abc123", "def456");
  EXPECT_NE(md.find("✅ You can merge normally! (1 Unrelated Failures)"), std::string::npos) << md;
  EXPECT_NE(md.find("BROKEN TRUNK"), std::string::npos);
  verdicts = classify_pr(input_with({job("test (default)", "head", "failure", {"Ops.Mul"})}, {base}));
  md = pr_comment_markdown(verdicts, "abc123", "def456");
  EXPECT_NE(md.find("❌ 1 New Failures"), std::string::npos) << md;
  EXPECT_NE(md.find("NEW FAILURES"), std::string::npos);
}

}  // namespace
}  // namespace relforge::triage
