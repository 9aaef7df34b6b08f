#include "triage/pr.hpp"

#include <algorithm>
#include <map>

#include <re2/re2.h>

#include "core/text.hpp"
#include "triage/cluster.hpp"

namespace relforge::triage {
namespace {

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Captures that say nothing about the cause (an exit code) match everything: never compare them.
bool generic(const std::vector<std::string>& captures) {
  static const re2::RE2 k_generic(R"((?:Process completed with exit code \d+\.?|\d+|))");
  return std::all_of(captures.begin(), captures.end(),
                     [](const std::string& capture) { return re2::RE2::FullMatch(capture, k_generic); });
}

bool failed(const PrJob& job) {
  return job.conclusion == "failure" || job.conclusion == "timed_out";
}

std::string describe(const PrJob& job) {
  return job.name + " on " + core::short_sha(job.commit) +
         (job.rule.empty() ? "" : " (" + job.rule + ": " + job.line + ")");
}

}  // namespace

std::string_view verdict_name(PrVerdict verdict) {
  switch (verdict) {
    case PrVerdict::new_failure:
      return "NEW";
    case PrVerdict::broken_trunk:
      return "BROKEN_TRUNK";
    case PrVerdict::flaky:
      return "FLAKY";
    case PrVerdict::unstable:
      return "UNSTABLE";
    case PrVerdict::unclassified:
      return "UNCLASSIFIED";
    case PrVerdict::cancelled:
      return "CANCELLED";
    case PrVerdict::awaiting_approval:
      return "AWAITING_APPROVAL";
    case PrVerdict::pending:
      return "PENDING";
  }
  return "UNKNOWN";
}

std::string job_base_name(const std::string& name) {
  static const re2::RE2 k_shard(R"(, [0-9]+, [0-9]+, .+\))");
  std::string out = name;
  re2::RE2::Replace(&out, k_shard, ")");
  return out;
}

std::vector<PrJobVerdict> classify_pr(const PrInput& input) {
  std::map<std::string, std::vector<const PrJob*>> base_by_name;
  for (const auto& job : input.base_jobs) base_by_name[job_base_name(job.name)].push_back(&job);
  std::vector<PrJobVerdict> out;
  for (const auto& job : input.head_jobs) {
    PrJobVerdict verdict{job, PrVerdict::new_failure, ""};
    const std::string base_name = job_base_name(job.name);
    auto decide = [&](PrVerdict kind, std::string evidence) {
      verdict.verdict = kind;
      verdict.evidence = std::move(evidence);
      out.push_back(verdict);
    };
    if (job.conclusion == "action_required" || job.conclusion == "startup_failure") {
      decide(PrVerdict::awaiting_approval, "conclusion " + job.conclusion);
      continue;
    }
    if (job.conclusion.empty()) {
      decide(PrVerdict::pending, "no conclusion yet");
      continue;
    }
    if (job.conclusion == "cancelled") {
      decide(PrVerdict::cancelled, "cancelled");
      continue;
    }
    if (!failed(job)) continue;
    if (contains(core::to_lower(job.name), "unstable") || input.unstable_jobs.count(base_name) != 0) {
      decide(PrVerdict::unstable, "job marked unstable");
      continue;
    }
    const bool lint = contains(core::to_lower(job.name), "lint");
    const auto base = base_by_name.find(base_name);
    if (!lint && base != base_by_name.end() && !generic(job.captures)) {
      const auto same = std::find_if(base->second.begin(), base->second.end(), [&](const PrJob* other) {
        return other->conclusion == job.conclusion && other->rule == job.rule &&
               other->captures == job.captures;
      });
      if (same != base->second.end()) {
        decide(PrVerdict::broken_trunk, "the merge base failed the same way: " + describe(**same));
        continue;
      }
    }
    if (job.rule_flaky) {
      decide(PrVerdict::flaky, "flaky rule " + job.rule + ": " + job.line);
      continue;
    }
    if (job.runner_name.empty() && job.rule.empty()) {
      decide(PrVerdict::flaky, "infrastructure: failed without a runner and without failure lines");
      continue;
    }
    const auto disabled = std::find_if(job.captures.begin(), job.captures.end(), [&](const std::string& c) {
      return input.disabled_tests.count(c) != 0;
    });
    if (disabled != job.captures.end()) {
      decide(PrVerdict::flaky, "failing test " + *disabled + " is disabled (DISABLED issue open)");
      continue;
    }
    const bool window_ok = input.head_time - (input.base_time - k_day_seconds) <= 7 * k_day_seconds;
    if (window_ok && !generic(job.captures)) {
      const auto similar =
          std::find_if(input.trunk_jobs.begin(), input.trunk_jobs.end(), [&](const PrJob& other) {
            return failed(other) && other.author != input.pr_author && other.rule == job.rule &&
                   other.captures == job.captures && other.time >= input.base_time - k_day_seconds &&
                   other.time <= input.head_time;
          });
      if (similar != input.trunk_jobs.end()) {
        decide(PrVerdict::flaky, "similar failure elsewhere in trunk: " + describe(*similar));
        continue;
      }
    }
    if (base == base_by_name.end()) {
      decide(PrVerdict::unclassified, "the job never ran on the merge base");
      continue;
    }
    decide(PrVerdict::new_failure, job.rule.empty() ? "no rule matched" : job.rule + ": " + job.line);
  }
  return out;
}

std::string pr_comment_markdown(const std::vector<PrJobVerdict>& verdicts, const std::string& head,
                                const std::string& base) {
  std::map<PrVerdict, std::vector<const PrJobVerdict*>> by;
  for (const auto& v : verdicts) by[v.verdict].push_back(&v);
  auto count = [&](PrVerdict kind) { return by.count(kind) ? by[kind].size() : std::size_t{0}; };
  const std::size_t unrelated =
      count(PrVerdict::broken_trunk) + count(PrVerdict::flaky) + count(PrVerdict::unstable);
  const std::size_t blocking =
      count(PrVerdict::new_failure) + count(PrVerdict::cancelled) + count(PrVerdict::unclassified);
  std::string md = "## relforge CI triage\nAs of commit " + head + " (merge base " + base + "):\n\n";
  if (blocking == 0) {
    md += "### ✅ You can merge normally! (" + std::to_string(unrelated) + " Unrelated Failures)\n";
  } else {
    md += "### ❌ " + std::to_string(count(PrVerdict::new_failure)) + " New Failures, " +
          std::to_string(count(PrVerdict::cancelled)) + " Cancelled Jobs, " +
          std::to_string(count(PrVerdict::unclassified)) + " Unclassified, " + std::to_string(unrelated) +
          " Unrelated Failures\n";
  }
  const std::vector<std::pair<PrVerdict, std::string>> sections = {
      {PrVerdict::new_failure, "NEW FAILURES - these jobs failed and the failure is not on the merge base"},
      {PrVerdict::cancelled, "CANCELLED JOBS - please retry"},
      {PrVerdict::unclassified, "UNCLASSIFIED - these jobs never ran on the merge base"},
      {PrVerdict::broken_trunk,
       "BROKEN TRUNK - these jobs failed the same way on the merge base; rebase onto a green commit"},
      {PrVerdict::flaky, "FLAKY - these jobs failed but were likely flaky or infrastructure"},
      {PrVerdict::unstable, "UNSTABLE - these jobs are marked unstable"},
      {PrVerdict::awaiting_approval, "AWAITING APPROVAL"},
      {PrVerdict::pending, "PENDING"},
  };
  for (const auto& [kind, title] : sections) {
    if (count(kind) == 0) continue;
    md += "\n#### " + title + ":\n";
    for (const auto* v : by[kind]) {
      md += "* " + (v->job.url.empty() ? v->job.name : "[" + v->job.name + "](" + v->job.url + ")");
      if (v->job.conclusion == "timed_out") md += " (timed out)";
      md += "\n  " + v->evidence + "\n";
    }
  }
  return md;
}

}  // namespace relforge::triage
