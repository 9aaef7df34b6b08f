#pragma once
// A PR's failed jobs classified against its merge base (after Dr. CI; first matching step wins,
// then a second pass over the PR's own failures): NEW, BROKEN_TRUNK, FLAKY, UNSTABLE,
// UNCLASSIFIED, CANCELLED, each with its evidence; the verdict (does anything block merging?) and
// the Markdown comment body, found again on the PR by k_pr_comment_marker. Unlike Dr. CI,
// timed-out jobs are classified like failures.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace relforge::triage {

// How a job's result weighs on merging. dr_ci: Dr. CI's rule (new, cancelled and unclassified
// failures block). required (an L4 repository): a failure or a pending job blocks, cancelled and
// timed_out do not. advisory (L2/L3): shown, never blocks.
enum class Gate { dr_ci, required, advisory };

// Where a job's result came from: a runner (a workflow_job or check run, with a runner name and
// perhaps a log), or the downstream's own report (the relay's result callback: neither).
enum class JobOrigin { runner, callback };

struct PrJob {
  std::string name;  // "test (default, 1, 4, linux.2xlarge)"
  std::string commit;
  std::string conclusion;  // success, failure, cancelled, timed_out, skipped, ... ; empty while running
  std::string runner_name;
  std::string url;
  std::string rule;  // the classification, empty when no rule matched
  std::string line;
  std::vector<std::string> captures;
  bool rule_flaky = false;
  std::string author;  // of the commit the job ran on
  std::int64_t time = 0;
  Gate gate = Gate::dr_ci;
  JobOrigin origin = JobOrigin::runner;
};

enum class PrVerdict {
  new_failure,
  broken_trunk,
  flaky,
  unstable,
  unclassified,
  cancelled,
  awaiting_approval,
  pending
};
std::string_view verdict_name(PrVerdict verdict);

struct PrJobVerdict {
  PrJob job;
  PrVerdict verdict = PrVerdict::new_failure;
  std::string evidence;  // the base job, the similar job or the rule that decided
};

struct PrInput {
  std::vector<PrJob> head_jobs;
  std::vector<PrJob> base_jobs;   // jobs on the merge base
  std::vector<PrJob> trunk_jobs;  // other trunk jobs, for "similar failure elsewhere"
  std::string pr_author;
  std::int64_t base_time = 0, head_time = 0;
  std::set<std::string> disabled_tests;  // "test (Class)" with an open DISABLED issue
  std::set<std::string> unstable_jobs;   // job names (or prefixes) with an open UNSTABLE issue
};

// Drops the shard suffix: "test (default, 1, 4, linux.2xlarge)" → "test (default)".
std::string job_base_name(const std::string& name);

// An open issue of the repository: "UNSTABLE <job>" marks a job (or every job the name is a
// prefix of, at a " / ", " · " or " (" boundary) unstable; "DISABLED <test> (<Class>)" disables a test.
struct OpenIssue {
  std::int64_t number = 0;
  std::string title;
};
void add_issue(PrInput& input, const OpenIssue& issue);

std::vector<PrJobVerdict> classify_pr(const PrInput& input);

// Whether this verdict keeps the PR from merging (see Gate).
bool blocks_merge(const PrJobVerdict& verdict);

struct PrSummary {
  std::map<PrVerdict, std::size_t> counts;
  std::size_t blocking = 0;      // verdicts that block merging
  std::size_t new_failures = 0;  // NEW verdicts of jobs that can block (not advisory)
  std::string title;             // ":x: 2 New Failures, 1 Flaky"
};
PrSummary summarise_pr(const std::vector<PrJobVerdict>& verdicts);

// The first line of every comment body: how `--post` finds its comment again.
inline constexpr std::string_view k_pr_comment_marker = "<!-- relforge-pr-comment -->";

std::string pr_comment_markdown(const std::vector<PrJobVerdict>& verdicts, const std::string& head,
                                const std::string& base);

}  // namespace relforge::triage
