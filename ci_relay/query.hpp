#pragma once
// Read side of the relay: breakages, the commit × job grid, repository health and Prometheus
// metrics, as values and as JSON (the CLI and the HTTP API render the same documents).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ci_relay/config.hpp"
#include "core/error.hpp"
#include "platform/sqlite.hpp"

namespace relforge::ci_relay {

// What triage said about a failed job: the winning rule and the line it matched.
struct JobClassification {
  std::string rule;  // empty: the log was classified but no rule matched
  std::string category;
  std::string line;  // valid UTF-8: each ill-formed byte of the stored log line reads as U+FFFD
  std::int64_t line_num = 0;
  std::vector<std::string> captures;
  bool flaky = false;
};

// SQL columns read by read_classification, in order (prefix them with a table alias if needed).
inline constexpr const char* k_classification_columns =
    "classification, classification_category, classification_line, classification_line_num, "
    "classification_captures, classification_flaky";
std::optional<JobClassification> read_classification(const platform::Statement& stmt, int first_column);

struct BreakageView {
  std::int64_t id = 0;
  std::string repo, workflow, job, state;
  std::string last_good_sha, first_bad_sha;
  std::int64_t suspects = 0;
  std::optional<std::string> culprit_sha, fixed_sha;
  std::int64_t opened_at = 0;
  std::optional<std::int64_t> closed_at, detection_latency_s;
  std::vector<std::string> suspect_shas;            // oldest first; filled by show_breakage
  std::optional<std::string> bisect_sha;            // the commit to test next (ranges > 1)
  std::vector<std::string> run_urls;                // failing runs on the first bad commit
  std::optional<JobClassification> classification;  // of the failure on the first bad commit
};

enum class OpenOnly { no, yes };

struct BreakageFilter {
  OpenOnly open_only = OpenOnly::no;
  std::string repo;  // empty: all
};

Result<std::vector<BreakageView>> list_breakages(platform::Database& db, const BreakageFilter& filter);
Result<BreakageView> show_breakage(platform::Database& db, std::int64_t id);

struct GridRow {
  std::string sha, message, author;
  std::int64_t committed_at = 0;
  std::string glyphs;                                        // one per column
  std::map<std::size_t, JobClassification> classifications;  // column → the failed run's classification
  std::vector<std::string> urls;  // per column: the job page (the failed run's when one failed), or ""
};
struct GridKey {
  std::string repo, workflow, job;
};
struct Grid {
  std::vector<std::string> columns;  // "repo · workflow / job"
  std::vector<GridKey> keys;         // the same columns, as parts
  std::vector<GridRow> rows;         // newest first
};
// Which commits (newest first, `offset` skipped, at most `limit`) and which columns: repo is
// case-insensitive, workflow and job exact; empty means all.
struct GridQuery {
  std::string repo, workflow, job;
  std::int64_t offset = 0;
  int limit = 50;
};
Result<Grid> build_grid(platform::Database& db, const RelayConfig& config, const GridQuery& query);
Result<Grid> build_grid(platform::Database& db, const RelayConfig& config, const std::string& repo,
                        int limit);

struct RepoHealth {
  std::string repo;
  Tier tier = Tier::l1;
  std::int64_t completed = 0;
  std::optional<double> pass_rate;       // over the last 7 days
  std::optional<double> queue_s, run_s;  // means over the last 7 days
  std::optional<double> mttd_s;
  std::int64_t open_breakages = 0;
  bool below_bar = false;
  std::string bar;                                     // why it no longer meets its tier, when below_bar
  std::vector<std::optional<double>> daily_pass_rate;  // 7 days ending at `now`, oldest first
};
// Counts jobs completed in (now - 7 days, now]: a past `now` (replays, tests) sees that week.
Result<std::vector<RepoHealth>> repo_health(platform::Database& db, const RelayConfig& config,
                                            std::int64_t now);

struct JobView {
  std::int64_t id = 0;
  std::string repo, workflow, job, head_sha, status;
  std::optional<std::string> conclusion;
  std::int64_t run_id = 0, run_attempt = 1;
  std::optional<std::int64_t> github_job_id, completed_at;
  std::string url, runner;
  std::optional<JobClassification> classification;
};

enum class FailedOnly { no, yes };

struct JobFilter {
  std::string repo;  // empty: all
  std::string sha;   // empty: all commits
  FailedOnly failed_only = FailedOnly::no;
  int limit = 100;
};

// Newest first.
Result<std::vector<JobView>> list_jobs(platform::Database& db, const JobFilter& filter);

nlohmann::json to_json(const JobClassification& classification);
nlohmann::json to_json(const JobView& job);
nlohmann::json to_json(const BreakageView& breakage);
nlohmann::json to_json(const Grid& grid);
nlohmann::json to_json(const RepoHealth& health);

Result<std::string> prometheus_metrics(platform::Database& db, const RelayConfig& config, std::int64_t now);
Result<std::string> dashboard_html(platform::Database& db, const RelayConfig& config, std::int64_t now);

}  // namespace relforge::ci_relay
