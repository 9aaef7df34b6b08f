#include "triage/cluster.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <re2/re2.h>

#include "platform/digest.hpp"

namespace relforge::triage {
namespace {

bool is_base64_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
         c == '-' || c == '_' || c == '=';
}

// A run of 16+ base64 characters with a digit, an upper- and a lower-case letter: tokens, ids and
// digests; plain words and snake_case identifiers lack the mix and stay readable.
std::string replace_base64_runs(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_base64_char(text[i])) {
      out.push_back(text[i++]);
      continue;
    }
    std::size_t j = i;
    bool digit = false, upper = false, lower = false;
    while (j < text.size() && is_base64_char(text[j])) {
      const char c = text[j];
      digit |= c >= '0' && c <= '9';
      upper |= c >= 'A' && c <= 'Z';
      lower |= c >= 'a' && c <= 'z';
      ++j;
    }
    // `\_` and `\%` escapes must survive: a run that contains a backslash was split before it.
    if (j - i >= 16 && digit && upper && lower)
      out.push_back('%');
    else
      out.append(text, i, j - i);
    i = j;
  }
  return out;
}

}  // namespace

std::string cluster_key(std::string_view reason) {
  std::string key;
  for (const char c : reason) {
    if (c == '%' || c == '_' || c == '\\') key.push_back('\\');
    key.push_back(c);
  }
  static const re2::RE2 temp_path(
      R"((?:/tmp|/var/tmp|/dev/shm|/private/var/folders|/var/folders)/[^\s'":,;)\]]*)"
      R"(|[A-Za-z]:\\\\Users\\\\[^\s'"]*\\\\Temp\\\\[^\s'":,;)\]]*)");
  static const re2::RE2 hex_run("[0-9a-fA-F]{8,}");
  static const re2::RE2 digit_run("[0-9]+");
  re2::RE2::GlobalReplace(&key, temp_path, "%");
  key = replace_base64_runs(key);
  re2::RE2::GlobalReplace(&key, hex_run, "%");
  re2::RE2::GlobalReplace(&key, digit_run, "%");
  return key;
}

std::string cluster_id(std::string_view key) {
  return platform::to_hex(platform::sha256(key)).substr(0, 32);
}

std::vector<ClusterSummary> summarise_clusters(const std::vector<FailureRecord>& failures, std::int64_t now) {
  std::map<std::string, std::vector<const FailureRecord*>> by_key;
  for (const auto& failure : failures) {
    if (failure.time <= now) by_key[cluster_key(failure.reason)].push_back(&failure);
  }
  std::vector<ClusterSummary> clusters;
  for (auto& [key, members] : by_key) {
    std::stable_sort(members.begin(), members.end(),
                     [](const FailureRecord* a, const FailureRecord* b) { return a->time < b->time; });
    if (members.back()->time <= now - 7 * k_day_seconds) continue;
    ClusterSummary summary;
    summary.key = key;
    summary.id = cluster_id(key);
    summary.algorithm = std::string(k_cluster_algorithm);
    summary.example = members.back()->reason;
    summary.rule = members.back()->rule;
    summary.last_seen_time = members.back()->time;
    std::size_t streak = 0;
    for (std::size_t i = 1; i < members.size(); ++i) {
      if (members[i]->time - members[i - 1]->time >= k_new_failure_window_days * k_day_seconds) streak = i;
    }
    summary.first_seen_commit = members[streak]->commit;
    summary.first_seen_time = members[streak]->time;
    // With no earlier history at all we cannot tell "new" from "old but unrecorded" unless the
    // records reach back 21 days before the streak; the store keeps that much, so trust it.
    summary.new_failure = summary.first_seen_time > now - 7 * k_day_seconds;
    std::set<std::string> jobs, repos, commits;
    for (const auto* member : members) {
      const std::int64_t age = now - member->time;
      if (age < k_day_seconds) ++summary.failures_1d;
      if (age < 3 * k_day_seconds) ++summary.failures_3d;
      if (age < 7 * k_day_seconds) {
        ++summary.failures_7d;
        jobs.insert(member->repo + "\n" + member->job);
        repos.insert(member->repo);
        commits.insert(member->commit);
      }
    }
    summary.jobs_7d = jobs.size();
    summary.repos_7d = repos.size();
    summary.commits_7d = commits.size();
    clusters.push_back(std::move(summary));
  }
  std::sort(clusters.begin(), clusters.end(), [](const ClusterSummary& a, const ClusterSummary& b) {
    if (a.failures_7d != b.failures_7d) return a.failures_7d > b.failures_7d;
    if (a.failures_1d != b.failures_1d) return a.failures_1d > b.failures_1d;
    return a.id < b.id;
  });
  return clusters;
}

}  // namespace relforge::triage
