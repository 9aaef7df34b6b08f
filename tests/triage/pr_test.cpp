#include "triage/pr.hpp"

#include <gtest/gtest.h>

#include "core/utf8.hpp"
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
  out.line = "[  FAILED  ] " + (out.captures.empty() ? std::string("x") : out.captures.front());
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

// A downstream that reports its own result (the relay's /api/results) has no runner and no log:
// its failure is NEW or UNCLASSIFIED like any other, never infrastructure, so an L4 one blocks.
TEST(Pr, AReportedFailureWithoutRunnerOrLogIsNotInfrastructure) {
  auto reported = job("ci / test", "head", "failure", {}, "");
  reported.runner_name.clear();
  reported.origin = JobOrigin::callback;
  reported.gate = Gate::required;
  auto never_on_base = reported;
  never_on_base.name = "ci / new";
  const auto verdicts =
      classify_pr(input_with({reported, never_on_base}, {job("ci / test", "base", "success", {})}));
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::new_failure) << verdicts[0].evidence;
  EXPECT_EQ(verdicts[1].verdict, PrVerdict::unclassified) << verdicts[1].evidence;
  EXPECT_TRUE(blocks_merge(verdicts[0]));
  EXPECT_TRUE(blocks_merge(verdicts[1]));
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
  auto elsewhere = job("test (default, 2, 3, linux.2xlarge)", "c9", "failure", {"Ops.Flaky"});
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

TEST(Pr, ADisabledTestIsFoundByTheNameEachTestRunnerPrints) {
  // The disable list and DISABLED issues name a test "test_a (module.Class)" (its JUnit report's
  // name); the failure lines name it pytest's, unittest's or GoogleTest's way.
  struct Named {
    const char* rule;
    std::vector<std::string> captures;
    const char* disabled;
  };
  for (const auto& c :
       {Named{"pytest_failure",
              {"test/test_ops.py::TestX::test_a", "AssertionError"},
              "test_a (test.test_ops.TestX)"},
        Named{"pytest_failure", {"test/test_nn.py::test_b[cpu]"}, "test_b[cpu] (test.test_nn)"},
        Named{"pytest_subtest_failure", {"t.py::T::test_c", "(i=1)"}, "test_c (t.T)"},
        Named{"unittest_failure", {"test_a", "__main__.TestX"}, "test_a (test.test_ops.TestX)"},
        Named{"gtest_failure", {"OpsTest.Add"}, "Add (OpsTest)"},
        Named{"gtest_failure", {"Inst/OpsTest.Add/0"}, "Add/0 (Inst/OpsTest)"}}) {
    SCOPED_TRACE(c.disabled);
    auto input = input_with({job("test (default)", "head", "failure", c.captures, c.rule)},
                            {job("test (default)", "base", "success", {})});
    EXPECT_EQ(classify_pr(input)[0].verdict, PrVerdict::new_failure);
    input.disabled_tests = {c.disabled};
    const auto verdicts = classify_pr(input);
    EXPECT_EQ(verdicts[0].verdict, PrVerdict::flaky);
    EXPECT_NE(verdicts[0].evidence.find("is disabled"), std::string::npos) << verdicts[0].evidence;
  }
  // Another class of the same test name is another test.
  auto input =
      input_with({job("test (default)", "head", "failure", {"t.py::TestY::test_a"}, "pytest_failure")},
                 {job("test (default)", "base", "success", {})});
  input.disabled_tests = {"test_a (t.TestX)"};
  EXPECT_EQ(classify_pr(input)[0].verdict, PrVerdict::new_failure);
}

TEST(Pr, TrunkFailureOfAnotherJobIsNoEvidenceOfFlakiness) {
  // The same test failing on Windows in trunk says nothing about this PR's macOS failure.
  auto input = input_with({job("test (macos)", "head", "failure", {"Ops.Flaky"})},
                          {job("test (macos)", "base", "success", {})});
  auto windows = job("test (windows)", "c9", "failure", {"Ops.Flaky"});
  windows.author = "other-person";
  input.trunk_jobs = {windows};
  EXPECT_EQ(classify_pr(input)[0].verdict, PrVerdict::new_failure);
  input.trunk_jobs[0].name = "test (macos, 1, 2, macos-14)";  // the same job, another shard
  const auto verdicts = classify_pr(input);
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::flaky);
  EXPECT_NE(verdicts[0].evidence.find("test (macos, 1, 2, macos-14)"), std::string::npos);
}

TEST(Pr, OpenIssuesMarkJobsUnstableAndTestsDisabled) {
  auto input =
      input_with({job("pull / linux-jammy / test (default, 1, 3, linux.2xlarge)", "head", "failure", {"A"}),
                  job("pull / linux-jammy-rocm / test (default)", "head", "failure", {"B"}),
                  job("pull / win / test (default)", "head", "failure", {"test_c (TestC)"})},
                 {});
  add_issue(input, {7, "UNSTABLE pull / linux-jammy"});
  add_issue(input, {8, "  DISABLED test_c (TestC) "});
  add_issue(input, {9, "UNSTABLE"});              // names nothing
  add_issue(input, {10, "unstable pull / win"});  // the convention is upper case
  const auto verdicts = classify_pr(input);
  ASSERT_EQ(verdicts.size(), 3u);
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::unstable);  // a prefix at a " / " boundary
  EXPECT_NE(verdicts[0].evidence.find("UNSTABLE issue"), std::string::npos);
  EXPECT_EQ(verdicts[1].verdict, PrVerdict::unclassified);  // "linux-jammy-rocm" is another job
  EXPECT_EQ(verdicts[2].verdict, PrVerdict::flaky);
  EXPECT_EQ(input.unstable_jobs, (std::set<std::string>{"pull / linux-jammy"}));
}

TEST(Pr, SecondPassGivesAnEqualFailureTheExplainedVerdict) {
  // Two shards fail on the same line; only one of them has a base job to compare with.
  auto base = job("test (default)", "base", "failure", {"Ops.Add"});
  auto head_old = job("test (default)", "head", "failure", {"Ops.Add"});
  auto head_new = job("test (cuda)", "head", "failure", {"Ops.Add"});  // never ran on the base
  auto other_line = job("test (rocm)", "head", "failure", {"Ops.Add"});
  other_line.line = "[  FAILED  ] y";
  auto generic_exit =
      job("test (xla)", "head", "failure", {"Process completed with exit code 1"}, "gha_error");
  auto generic_base =
      job("test (default)", "base", "failure", {"Process completed with exit code 1"}, "gha_error");
  const auto verdicts =
      classify_pr(input_with({head_old, head_new, other_line, generic_exit}, {base, generic_base}));
  ASSERT_EQ(verdicts.size(), 4u);
  EXPECT_EQ(verdicts[0].verdict, PrVerdict::broken_trunk);
  EXPECT_EQ(verdicts[1].verdict, PrVerdict::broken_trunk);
  EXPECT_NE(verdicts[1].evidence.find("the same failure as test (default) (BROKEN_TRUNK)"), std::string::npos)
      << verdicts[1].evidence;
  EXPECT_EQ(verdicts[2].verdict, PrVerdict::unclassified);  // another line: not the same failure
  EXPECT_EQ(verdicts[3].verdict, PrVerdict::unclassified);  // generic captures prove nothing
}

TEST(Pr, RequiredJobsBlockAdvisoryJobsDoNot) {
  auto l4 = job("v/accel · ci / test", "head", "failure", {"Ops.Mul"});
  l4.gate = Gate::required;
  auto l3 = job("v/vision · ci / build", "head", "failure", {"Ops.Div"});
  l3.gate = Gate::advisory;
  auto l4_timed_out = job("v/accel · ci / slow", "head", "timed_out", {"Ops.Slow"});
  l4_timed_out.gate = Gate::required;
  auto l4_running = job("v/accel · ci / long", "head", "", {});
  l4_running.gate = Gate::required;
  const std::vector<PrJob> base = {job("v/accel · ci / test", "base", "success", {}),
                                   job("v/vision · ci / build", "base", "success", {}),
                                   job("v/accel · ci / slow", "base", "success", {})};
  auto verdicts = classify_pr(input_with({l3}, base));
  auto summary = summarise_pr(verdicts);
  EXPECT_FALSE(blocks_merge(verdicts[0]));
  EXPECT_EQ(summary.blocking, 0u);
  EXPECT_EQ(summary.new_failures, 0u);
  EXPECT_EQ(summary.title,
            ":white_check_mark: You can merge normally! (1 New Failure; none of them blocks merging)");
  verdicts = classify_pr(input_with({l3, l4_timed_out, l4_running}, base));
  summary = summarise_pr(verdicts);
  EXPECT_EQ(summary.blocking, 1u);  // the pending L4 job; a timed-out L4 job does not block
  EXPECT_EQ(summary.title, ":hourglass_flowing_sand: 2 New Failures, 1 Pending");
  verdicts = classify_pr(input_with({l3, l4}, base));
  summary = summarise_pr(verdicts);
  EXPECT_EQ(summary.blocking, 1u);
  EXPECT_EQ(summary.new_failures, 1u);
  EXPECT_EQ(summary.title, ":x: 2 New Failures");
  const auto md = pr_comment_markdown(verdicts, "abc123", "def456");
  EXPECT_NE(md.find("v/vision · ci / build (advisory: does not block merging)"), std::string::npos) << md;
}

TEST(Pr, CommentBodySaysWhetherToMerge) {
  auto base = job("test (default)", "base", "failure", {"Ops.Add"});
  auto verdicts = classify_pr(input_with({job("test (default)", "head", "failure", {"Ops.Add"})}, {base}));
  auto md = pr_comment_markdown(verdicts, "abc123", "def456");
  EXPECT_EQ(md.rfind(k_pr_comment_marker, 0), 0u);
  EXPECT_NE(md.find("## :white_check_mark: You can merge normally! (1 Unrelated Failure)\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("<details><summary><b>BROKEN TRUNK</b>"), std::string::npos) << md;
  verdicts = classify_pr(input_with({job("test (default)", "head", "failure", {"Ops.Mul"})}, {base}));
  md = pr_comment_markdown(verdicts, "abc123", "def456");
  EXPECT_NE(md.find("## :x: 1 New Failure\n"), std::string::npos) << md;
  EXPECT_NE(md.find("<details open><summary><b>NEW FAILURE</b>"), std::string::npos) << md;
  EXPECT_EQ(summarise_pr({}).title, ":white_check_mark: No Failures");
}

TEST(Pr, CommentShowsEachFailureWithLinkRuleAndLine) {
  auto a = job("test (a)", "head", "failure", {"Ops.Mul"});
  a.url = "https://github.com/o/r/actions/runs/1/job/2";
  a.line = "[  FAILED  ] Ops.Mul";
  auto flaky = job("test (b)", "head", "failure", {"pip"}, "pip_network_error");
  flaky.rule_flaky = true;
  flaky.line = "ERROR: Could not install packages";
  const auto verdicts = classify_pr(input_with({a, a, flaky}, {job("test (a)", "base", "success", {})}));
  const auto md = pr_comment_markdown(verdicts, std::string(40, 'a'), std::string(40, 'b'));
  EXPECT_EQ(
      md,
      std::string(k_pr_comment_marker) +
          "\n## :x: 2 New Failures, 1 Flaky\nAs of commit `aaaaaaaaaaaa` with merge base `bbbbbbbbbbbb`:\n"
          "\n<details open><summary><b>NEW FAILURES</b> - these jobs failed and the failure is not on the "
          "merge base:</summary>\n\n"
          "* [test (a)](https://github.com/o/r/actions/runs/1/job/2)\n"
          "  `gtest_failure`: ` [  FAILED  ] Ops.Mul `\n  gtest\\_failure: \\[  FAILED  \\] Ops.Mul\n"
          "* [test (a)](https://github.com/o/r/actions/runs/1/job/2)\n"
          "  `gtest_failure`: ` [  FAILED  ] Ops.Mul `\n  gtest\\_failure: \\[  FAILED  \\] Ops.Mul\n"
          "</details>\n"
          "\n<details><summary><b>FLAKY</b> - these jobs failed but were likely flaky or infrastructure:"
          "</summary>\n\n"
          "* test (b)\n  `pip_network_error`: ` ERROR: Could not install packages `\n"
          "  flaky rule pip\\_network\\_error: ERROR: Could not install packages\n</details>\n");
}

TEST(Pr, TheCommentIsUtf8AndShowsRuleNamesAsTheyAre) {
  auto a = job("test (a)", "head", "failure", {"x"}, "pytest_failure");
  // 299 bytes, then an "é" whose second byte would be the 301st, then a Latin-1 byte.
  a.line = "E   AssertionError: " + std::string(279, 'x') + "\xc3\xa9 caf\xe9";
  const auto md = pr_comment_markdown(classify_pr(input_with({a}, {job("test (a)", "base", "success", {})})),
                                      std::string(40, 'a'), std::string(40, 'b'));
  EXPECT_TRUE(core::is_valid_utf8(md));
  EXPECT_NE(md.find("  `pytest_failure`: ` E   AssertionError: "), std::string::npos) << md;
  EXPECT_NE(md.find(std::string(279, 'x') + "\xe2\x80\xa6 `"), std::string::npos) << md;
}

TEST(Pr, LogTextCannotForgeMarkupOrTheMarker) {
  auto evil = job("test ](https://evil.example) <b>x</b>", "head", "failure", {"x"});
  evil.url = "javascript:alert(1)";
  evil.line = "</details> <!-- relforge-pr-comment --> `` @everyone";
  const auto md = pr_comment_markdown(classify_pr(input_with({evil}, {})), "h", "b");
  // Only the first line carries the marker; the log line stays inside a code span, inert.
  EXPECT_EQ(md.find("\n" + std::string(k_pr_comment_marker)), std::string::npos) << md;
  EXPECT_EQ(md.find("\n</details>"), md.rfind("\n</details>")) << md;
  EXPECT_EQ(md.find("javascript:"), std::string::npos) << md;
  EXPECT_EQ(md.find("<b>x"), std::string::npos) << md;
  EXPECT_NE(md.find("``` </details> <!-- relforge-pr-comment --> `` @everyone ```"), std::string::npos) << md;
}

}  // namespace
}  // namespace relforge::triage
