#pragma once
// Failure-reason clustering (after LUCI Analysis): a normalised key, cluster id = hex of the first
// 16 bytes of SHA-256(key), impact counts over 1/3/7 days, first-seen commit and "new failure"
// (Treeherder: not seen in the previous 21 days). The algorithm is versioned: a change re-clusters.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace relforge::triage {

inline constexpr std::string_view k_cluster_algorithm = "reason-v1";
inline constexpr std::int64_t k_day_seconds = 24 * 60 * 60;
inline constexpr std::int64_t k_new_failure_window_days = 21;

// LIKE specials (`%`, `_`, `\`) escaped with `\`, then temp paths, base64-like runs, hex runs of 8+
// and digit runs each become `%`.
std::string cluster_key(std::string_view reason);
std::string cluster_id(std::string_view key);  // 32 lowercase hex characters

struct FailureRecord {
  std::string repo;
  std::string job;
  std::string commit;
  std::int64_t time = 0;  // Unix seconds
  std::string rule;
  std::string reason;  // the classified line
};

struct ClusterSummary {
  std::string id;
  std::string key;
  std::string algorithm;
  std::string example;  // the most recent reason in the cluster
  std::string rule;     // the rule of the most recent failure
  std::uint64_t failures_1d = 0, failures_3d = 0, failures_7d = 0;
  std::uint64_t jobs_7d = 0, repos_7d = 0, commits_7d = 0;  // distinct
  std::string first_seen_commit;                            // where the current streak began
  std::int64_t first_seen_time = 0;
  std::int64_t last_seen_time = 0;
  bool new_failure = false;  // the current streak began within 7 days, after 21 days unseen
};

// Clusters failures with time <= now; clusters without a failure in the last 7 days are left out.
// Sorted by failures_7d, then failures_1d, descending, then id.
std::vector<ClusterSummary> summarise_clusters(const std::vector<FailureRecord>& failures, std::int64_t now);

}  // namespace relforge::triage
