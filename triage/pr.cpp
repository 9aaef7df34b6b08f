#include "triage/pr.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <re2/re2.h>

#include "core/text.hpp"
#include "core/utf8.hpp"
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

// A test as DISABLED issues name it, with the class but not its module: "test_a (TestX)" for
// "test_a (test.test_ops.TestX)"; a name without a class stays as it is.
std::string without_module(std::string_view test) {
  const std::size_t open = test.rfind(" (");
  if (open == std::string_view::npos || test.back() != ')') return std::string(test);
  const std::string_view owner = test.substr(open + 2, test.size() - open - 3);
  const std::size_t dot = owner.rfind('.');
  return std::string(test.substr(0, open + 2)) +
         std::string(dot == std::string_view::npos ? owner : owner.substr(dot + 1)) + ")";
}

// The test a failure line names, in that form, for the rules whose captures name one: pytest's
// "test/test_ops.py::TestX::test_a" (a function's class is its module), unittest's ("test_a",
// "test.test_ops.TestX"), GoogleTest's "Suite.Test" (its JUnit report: "Test (Suite)").
std::optional<std::string> failing_test(const PrJob& job) {
  if (job.captures.empty() || job.captures.front().empty()) return std::nullopt;
  const std::string& first = job.captures.front();
  if (job.rule == "pytest_failure" || job.rule == "pytest_subtest_failure") {
    std::vector<std::string> parts;
    for (std::size_t from = 0;;) {
      const std::size_t at = first.find("::", from);
      parts.push_back(first.substr(from, at == std::string::npos ? std::string::npos : at - from));
      if (at == std::string::npos) break;
      from = at + 2;
    }
    if (parts.size() < 2) return std::nullopt;
    std::string owner = parts[parts.size() - 2];
    if (parts.size() == 2) {  // path::function
      owner = owner.substr(owner.rfind('/') + 1);
      if (owner.size() > 3 && owner.compare(owner.size() - 3, 3, ".py") == 0) owner.resize(owner.size() - 3);
    }
    return parts.back() + " (" + owner + ")";
  }
  if (job.rule == "unittest_failure" && job.captures.size() >= 2)
    return without_module(first + " (" + job.captures[1] + ")");
  if (job.rule == "gtest_failure") {
    const std::size_t dot = first.find('.');
    if (dot == std::string::npos) return std::nullopt;
    return first.substr(dot + 1) + " (" + first.substr(0, dot) + ")";
  }
  return std::nullopt;
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

void add_issue(PrInput& input, const OpenIssue& issue) {
  const std::string title(core::trim(issue.title));
  auto after = [&](std::string_view prefix) -> std::optional<std::string> {
    if (title.size() <= prefix.size() || title.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    std::string rest(core::trim(std::string_view(title).substr(prefix.size())));
    if (rest.empty()) return std::nullopt;
    return rest;
  };
  if (auto job = after("UNSTABLE ")) input.unstable_jobs.insert(*job);
  if (auto test = after("DISABLED ")) input.disabled_tests.insert(*test);
}

namespace {

// "UNSTABLE pull / linux" covers "pull / linux / test (default)": a prefix ending at a boundary.
bool marked_unstable(const std::set<std::string>& unstable, const std::string& name,
                     const std::string& base) {
  for (const auto& entry : unstable) {
    for (const std::string* candidate : {&base, &name}) {
      if (*candidate == entry) return true;
      if (candidate->size() <= entry.size() || candidate->compare(0, entry.size(), entry) != 0) continue;
      const std::string_view rest = std::string_view(*candidate).substr(entry.size());
      for (std::string_view boundary : {" / ", " · ", " ("}) {
        if (rest.substr(0, boundary.size()) == boundary) return true;
      }
    }
  }
  return false;
}

bool explained(PrVerdict verdict) {
  return verdict == PrVerdict::broken_trunk || verdict == PrVerdict::flaky;
}

bool unrelated(PrVerdict verdict) {
  return verdict == PrVerdict::broken_trunk || verdict == PrVerdict::flaky || verdict == PrVerdict::unstable;
}

// Dr. CI's second pass: a failure the first pass could not explain that equals (same rule, same
// captured line) another failure of this PR which it explained as broken trunk or flaky is that
// same failure. Only first-pass verdicts are evidence, so nothing is explained by a chain of
// look-alikes; an unstable job's failure explains nothing about a stable job's.
void second_pass(std::vector<PrJobVerdict>& verdicts) {
  const std::vector<PrJobVerdict> first = verdicts;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    PrJobVerdict& v = verdicts[i];
    if (v.verdict != PrVerdict::new_failure && v.verdict != PrVerdict::unclassified) continue;
    if (v.job.rule.empty() || v.job.line.empty() || generic(v.job.captures)) continue;
    for (std::size_t j = 0; j < first.size(); ++j) {
      const PrJobVerdict& other = first[j];
      if (i == j || !explained(other.verdict) || other.job.name == v.job.name) continue;
      if (other.job.rule != v.job.rule || other.job.line != v.job.line) continue;
      v.evidence = "the same failure as " + other.job.name + " (" + std::string(verdict_name(other.verdict)) +
                   "): " + other.evidence;
      v.verdict = other.verdict;
      break;
    }
  }
}

}  // namespace

std::vector<PrJobVerdict> classify_pr(const PrInput& input) {
  std::map<std::string, std::vector<const PrJob*>> base_by_name;
  for (const auto& job : input.base_jobs) base_by_name[job_base_name(job.name)].push_back(&job);
  std::set<std::string> disabled;
  for (const auto& test : input.disabled_tests) disabled.insert(without_module(test));
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
    if (contains(core::to_lower(job.name), "unstable")) {
      decide(PrVerdict::unstable, "the job's name says unstable");
      continue;
    }
    if (marked_unstable(input.unstable_jobs, job.name, base_name)) {
      decide(PrVerdict::unstable, "an open UNSTABLE issue names this job");
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
    // A reported result never has a runner or a log: their absence says nothing about the
    // infrastructure, and calling it flaky would let every such L4 failure merge.
    if (job.origin == JobOrigin::runner && job.runner_name.empty() && job.rule.empty()) {
      decide(PrVerdict::flaky, "infrastructure: failed without a runner and without failure lines");
      continue;
    }
    const auto test = failing_test(job);
    const auto captured = std::find_if(job.captures.begin(), job.captures.end(), [&](const std::string& c) {
      return input.disabled_tests.count(c) != 0;
    });
    if ((test && disabled.count(*test) != 0) || captured != job.captures.end()) {
      decide(PrVerdict::flaky, "failing test " + (test && disabled.count(*test) != 0 ? *test : *captured) +
                                   " is disabled (DISABLED issue open)");
      continue;
    }
    const bool window_ok = input.head_time - (input.base_time - k_day_seconds) <= 7 * k_day_seconds;
    if (window_ok && !generic(job.captures)) {
      // Only the same job (shard aside) is evidence: a Windows failure says nothing about macOS.
      const auto similar =
          std::find_if(input.trunk_jobs.begin(), input.trunk_jobs.end(), [&](const PrJob& other) {
            return failed(other) && other.author != input.pr_author &&
                   job_base_name(other.name) == base_name && other.rule == job.rule &&
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
  second_pass(out);
  return out;
}

bool blocks_merge(const PrJobVerdict& v) {
  switch (v.job.gate) {
    case Gate::advisory:
      return false;
    case Gate::required:
      if (v.job.conclusion == "cancelled" || v.job.conclusion == "timed_out") return false;
      return v.verdict == PrVerdict::new_failure || v.verdict == PrVerdict::unclassified ||
             v.verdict == PrVerdict::pending || v.verdict == PrVerdict::awaiting_approval;
    case Gate::dr_ci:
      return v.verdict == PrVerdict::new_failure || v.verdict == PrVerdict::unclassified ||
             v.verdict == PrVerdict::cancelled;
  }
  return false;
}

namespace {

struct Category {
  PrVerdict kind;
  std::string_view one, many;  // the title's words
  std::string_view heading, says;
};

const std::vector<Category>& categories() {
  static const std::vector<Category> k_categories = {
      {PrVerdict::new_failure, "New Failure", "New Failures", "NEW FAILURE",
       "these jobs failed and the failure is not on the merge base"},
      {PrVerdict::cancelled, "Cancelled Job", "Cancelled Jobs", "CANCELLED JOB", "please retry these jobs"},
      {PrVerdict::unclassified, "Unclassified", "Unclassified", "UNCLASSIFIED",
       "these jobs failed and never ran on the merge base"},
      {PrVerdict::awaiting_approval, "Awaiting Approval", "Awaiting Approval", "AWAITING APPROVAL",
       "these jobs wait for a maintainer to approve running them"},
      {PrVerdict::pending, "Pending", "Pending", "PENDING", "these jobs have not finished"},
      {PrVerdict::broken_trunk, "Broken Trunk", "Broken Trunk", "BROKEN TRUNK",
       "these jobs failed the same way on the merge base; rebase onto a green commit"},
      {PrVerdict::flaky, "Flaky", "Flaky", "FLAKY",
       "these jobs failed but were likely flaky or infrastructure"},
      {PrVerdict::unstable, "Unstable", "Unstable", "UNSTABLE", "these jobs are marked unstable"},
  };
  return k_categories;
}

bool is_failure(PrVerdict kind) {
  return kind != PrVerdict::pending && kind != PrVerdict::awaiting_approval;
}

std::string counted(std::size_t n, const Category& c) {
  return std::to_string(n) + " " + std::string(n == 1 ? c.one : c.many);
}

// Text from logs and payloads, inert in Markdown: no HTML, no links, no emphasis, no mentions.
std::string md_text(std::string_view raw) {
  const std::string text = core::to_valid_utf8(raw);
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      case '\\':
      case '[':
      case ']':
      case '*':
      case '_':
      case '`':
      case '#':
      case '|':
      case '!':
      case '@':
      case '~':
        out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A log line as code: a fence longer than any backtick run inside it, one line, at most 300 bytes
// (cut between characters), UTF-8. Markdown shows a code span's text as it is: nothing to escape.
std::string code_span(std::string_view raw) {
  std::string text = core::to_valid_utf8(raw);
  if (text.size() > 300) {
    std::size_t cut = 300;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut) + "…";
  }
  for (auto& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::size_t longest = 0, run = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  return fence + " " + text + " " + fence;
}

// A name (a rule, a commit) as code: `name`, or a code span when it holds a backtick.
std::string code_word(std::string_view name) {
  return name.find('`') == std::string_view::npos ? "`" + core::to_valid_utf8(name) + "`" : code_span(name);
}

bool plain_url(const std::string& url) {
  if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) return false;
  return std::none_of(url.begin(), url.end(), [](char c) {
    return c == ' ' || c == '(' || c == ')' || c == '<' || c == '>' || c == '"' || c == '\n' || c == '\\';
  });
}

}  // namespace

PrSummary summarise_pr(const std::vector<PrJobVerdict>& verdicts) {
  PrSummary s;
  std::size_t failures = 0, unrelated_failures = 0, blocking_failures = 0;
  for (const auto& v : verdicts) {
    ++s.counts[v.verdict];
    const bool blocking = blocks_merge(v);
    if (blocking) ++s.blocking;
    if (v.verdict == PrVerdict::new_failure && v.job.gate != Gate::advisory) ++s.new_failures;
    if (is_failure(v.verdict)) {
      ++failures;
      if (unrelated(v.verdict)) ++unrelated_failures;
      if (blocking) ++blocking_failures;
    }
  }
  std::string counts;
  for (const auto& c : categories()) {
    const auto n = s.counts.find(c.kind);
    if (n == s.counts.end()) continue;
    counts += (counts.empty() ? "" : ", ") + counted(n->second, c);
  }
  if (blocking_failures > 0) {
    s.title = ":x: " + counts;
  } else if (s.blocking > 0) {  // only pending jobs hold it back
    s.title = ":hourglass_flowing_sand: " + (failures == 0 ? "No Failures, " + counts : counts);
  } else if (failures == 0) {
    s.title =
        s.counts.empty() ? ":white_check_mark: No Failures" : ":white_check_mark: No Failures, " + counts;
  } else if (failures == unrelated_failures && failures == verdicts.size()) {
    s.title = ":white_check_mark: You can merge normally! (" + std::to_string(failures) +
              (failures == 1 ? " Unrelated Failure)" : " Unrelated Failures)");
  } else {
    s.title = ":white_check_mark: You can merge normally! (" + counts + "; none of them blocks merging)";
  }
  return s;
}

std::string pr_comment_markdown(const std::vector<PrJobVerdict>& verdicts, const std::string& head,
                                const std::string& base) {
  const PrSummary summary = summarise_pr(verdicts);
  std::string md = std::string(k_pr_comment_marker) + "\n## " + summary.title + "\nAs of commit " +
                   code_word(core::short_sha(head)) + " with merge base " + code_word(core::short_sha(base)) +
                   ":\n";
  for (const auto& c : categories()) {
    std::vector<const PrJobVerdict*> in;
    for (const auto& v : verdicts) {
      if (v.verdict == c.kind) in.push_back(&v);
    }
    if (in.empty()) continue;
    const bool open =
        std::any_of(in.begin(), in.end(), [](const PrJobVerdict* v) { return blocks_merge(*v); });
    md += "\n<details" + std::string(open ? " open" : "") + "><summary><b>" + std::string(c.heading) +
          (in.size() == 1 ? "" : "S") + "</b> - " + std::string(c.says) + ":</summary>\n\n";
    for (const auto* v : in) {
      const PrJob& job = v->job;
      md += "* " + (plain_url(job.url) ? "[" + md_text(job.name) + "](" + job.url + ")" : md_text(job.name));
      if (job.conclusion == "timed_out") md += " (timed out)";
      if (job.gate == Gate::advisory) md += " (advisory: does not block merging)";
      if (job.gate == Gate::required) md += " (required)";
      md += "\n";
      if (!job.rule.empty()) md += "  " + code_word(job.rule) + ": " + code_span(job.line) + "\n";
      md += "  " + md_text(v->evidence) + "\n";
    }
    md += "</details>\n";
  }
  return md;
}

}  // namespace relforge::triage
