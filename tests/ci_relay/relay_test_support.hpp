#pragma once
// Shared helpers for the relay tests: a config, payload builders for push/workflow_job, a relay
// over a temporary database, and one that has replayed the scenario log.
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ci_relay/config.hpp"
#include "ci_relay/relay.hpp"
#include "ci_relay/replay.hpp"
#include "platform/sqlite.hpp"
#include "tests/support/paths.hpp"

namespace relforge::ci_relay::test {

inline std::filesystem::path temp_dir(const std::string& name) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() /
             ("relforge-relay-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline RelayConfig scenario_config() {
  RelayConfig config;
  config.upstream = "up/runtime";
  config.branch = "main";
  config.webhook_secret = "It's a Secret to Everybody";
  config.upstream_token = "upstream-token";
  config.api_base = "http://127.0.0.1:1";
  config.downstream = {{"v/accel", Tier::l4, "accel", "accel-token", "accel-callback"},
                       {"v/vision", Tier::l3, "vision", "vision-token", "vision-callback"},
                       {"v/serve", Tier::l2, "", "serve-token", "serve-callback"},
                       {"v/onboard", Tier::l1, "", "onboard-token", "onboard-callback"}};
  return config;
}

inline std::string sha_of(int n) {
  std::string hex = std::to_string(n);
  return std::string(40 - hex.size(), 'a') + hex;
}

constexpr std::int64_t k_t0 = 1'750'000'000;
inline std::int64_t commit_time(int n) {
  return k_t0 + n * 600;
}

inline const std::filesystem::path k_scenario_log =
    std::filesystem::path(relforge::test::source_dir()) / "tests/fixtures/relay/scenario.jsonl";

// `relay`: an in-memory relay on scenario_config() that has replayed k_scenario_log as of k_t0;
// its summary in `summary` when given.
inline void replay_scenario(std::optional<Relay>& relay, ReplaySummary* summary = nullptr) {
  auto opened = Relay::open(scenario_config(), ":memory:");
  ASSERT_TRUE(opened) << opened.error().describe();
  relay.emplace(std::move(*opened));
  auto replayed = replay(*relay, k_scenario_log, k_t0);
  ASSERT_TRUE(replayed) << replayed.error().describe();
  if (summary) *summary = std::move(*replayed);
}

inline std::string iso(std::int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

// A push of commits first..last (inclusive) to refs/heads/main of the upstream.
inline std::string push_payload(int first, int last, const std::string& repo = "up/runtime") {
  nlohmann::json commits = nlohmann::json::array();
  for (int n = first; n <= last; ++n) {
    commits.push_back({{"id", sha_of(n)},
                       {"message", "commit " + std::to_string(n) + "\n\nbody"},
                       {"timestamp", iso(commit_time(n))},
                       {"author", {{"name", "dev" + std::to_string(n % 3)}}}});
  }
  return nlohmann::json{{"ref", "refs/heads/main"},
                        {"before", first > 1 ? sha_of(first - 1) : std::string(40, '0')},
                        {"after", sha_of(last)},
                        {"deleted", false},
                        {"repository", {{"full_name", repo}}},
                        {"commits", commits},
                        {"head_commit", commits.back()}}
      .dump();
}

inline std::string job_payload(const std::string& repo, const std::string& workflow, const std::string& job,
                               std::int64_t run_id, std::int64_t attempt, const std::string& sha,
                               const std::string& status, const std::string& conclusion = "") {
  nlohmann::json wj = {
      {"id", run_id * 10 + attempt},
      {"run_id", run_id},
      {"run_attempt", attempt},
      {"head_sha", sha},
      {"name", job},
      {"workflow_name", workflow},
      {"status", status},
      {"conclusion", conclusion.empty() ? nlohmann::json(nullptr) : nlohmann::json(conclusion)},
      {"html_url", "https://github.com/" + repo + "/actions/runs/" + std::to_string(run_id)},
      {"runner_name", "runner-1"}};
  return nlohmann::json{{"action", status}, {"workflow_job", wj}, {"repository", {{"full_name", repo}}}}
      .dump();
}

// The first column of the first row of `sql` (a COUNT(*) or similar); -1 when it cannot run.
inline std::int64_t count(platform::Database& db, const std::string& sql) {
  auto stmt = db.prepare(sql);
  EXPECT_TRUE(stmt) << sql;
  if (!stmt) return -1;
  auto row = stmt->step();
  EXPECT_TRUE(row && *row) << sql;
  return stmt->column_int(0);
}

}  // namespace relforge::ci_relay::test
