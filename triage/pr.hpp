#pragma once
// A PR's failed jobs classified against its merge base (after Dr. CI; first matching step wins):
// NEW, BROKEN_TRUNK, FLAKY, UNSTABLE, UNCLASSIFIED, CANCELLED, each with its evidence, plus the
// Markdown comment body. Unlike Dr. CI, timed-out jobs are classified like failures.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace relforge::triage {

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
  std::set<std::string> unstable_jobs;   // names with an open UNSTABLE issue
};

// Drops the shard suffix: "test (default, 1, 4, linux.2xlarge)" → "test (default)".
std::string job_base_name(const std::string& name);

std::vector<PrJobVerdict> classify_pr(const PrInput& input);
std::string pr_comment_markdown(const std::vector<PrJobVerdict>& verdicts, const std::string& head,
                                const std::string& base);

}  // namespace relforge::triage
