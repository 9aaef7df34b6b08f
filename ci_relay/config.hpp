#pragma once
// relay.toml: the upstream repository, its webhook secret, the GitHub API base, and the
// downstream repositories with their tier (L1–L4), dispatch token and callback secret.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::ci_relay {

enum class Tier { l1 = 1, l2 = 2, l3 = 3, l4 = 4 };

std::string tier_name(Tier tier);  // "L1".."L4"

struct DownstreamRepo {
  std::string repo;  // owner/name, as configured
  Tier tier = Tier::l1;
  std::string device;           // L3 label gate: ciflow/crcr/<device>
  std::string token;            // GitHub token for repository_dispatch (never logged)
  std::string callback_secret;  // HMAC key for POST /api/results (never logged)
};

// Whether the relay fetches a failed job's log from the GitHub API to classify it.
enum class FetchLogs { no, yes };

struct RelayConfig {
  std::string upstream;         // owner/name
  std::string branch = "main";  // its first-parent history orders commits
  std::string webhook_secret;   // X-Hub-Signature-256 key
  std::string upstream_token;   // for check runs on upstream commits
  std::string api_base = "https://api.github.com";
  std::size_t max_body_bytes = 25U * 1024U * 1024U;    // GitHub caps payloads at 25 MB
  std::size_t max_log_bytes = std::size_t{256} << 20;  // a longer job log is not fetched whole
  std::int64_t zombie_seconds = 6 * 3600;
  int max_attempts = 8;              // outbox retries before an entry is marked failed
  std::int64_t backoff_seconds = 5;  // first retry delay; doubles up to an hour
  FetchLogs fetch_logs = FetchLogs::yes;
  std::filesystem::path rules_file;  // triage rules (TOML); empty: the built-in rules
  std::vector<DownstreamRepo> downstream;

  const DownstreamRepo* find(std::string_view repo) const;  // case-insensitive
  bool is_upstream(std::string_view repo) const;
  bool knows(std::string_view repo) const { return is_upstream(repo) || find(repo) != nullptr; }
};

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Inspection commands read the database without needing the secrets: `optional` leaves them empty.
enum class Secrets { required, optional };

// Secrets come from `<key>_env` (an environment variable) or `<key>_file` (relative to the config
// file); a literal `<key>` is accepted for tests only when it names no env/file variant.
Result<RelayConfig> parse_config(std::string_view toml_text, const std::filesystem::path& file,
                                 const EnvLookup& env, Secrets secrets = Secrets::required);
Result<RelayConfig> load_config(const std::filesystem::path& path, const EnvLookup& env,
                                Secrets secrets = Secrets::required);

}  // namespace relforge::ci_relay
