#include "ci_relay/config.hpp"

#include <cctype>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/text.hpp"
#include "platform/bounded_file.hpp"
#include "platform/toml.hpp"
#include "platform/toml_reader.hpp"

namespace relforge::ci_relay {
namespace {

// A token or webhook secret is tens of bytes; the cap only keeps /dev/zero-like files out.
constexpr std::size_t k_max_secret_file_bytes = 64u << 10;

// Called for every intake and grid row: compare in place instead of lower-casing two copies.
bool same_repo(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x != y && std::tolower(x) != std::tolower(y)) return false;
  }
  return true;
}

const std::vector<std::string> k_tiers = {"L1", "L2", "L3", "L4"};

std::vector<std::string> with_secret_keys(std::vector<std::string> keys,
                                          const std::vector<std::string>& secrets) {
  for (const auto& key : secrets) {
    keys.push_back(key);
    keys.push_back(key + "_env");
    keys.push_back(key + "_file");
  }
  return keys;
}

Result<std::string> optional_string(const platform::TomlReader& reader, const toml::table& table,
                                    const std::string& key, const std::string& context,
                                    std::string fallback) {
  const auto* node = table.get(key);
  if (node == nullptr) return fallback;
  return reader.string(*node, "'" + key + "' in " + context);
}

// Reads `key_env`, `key_file` or `key`; empty when none is given.
Result<std::string> read_secret(const platform::TomlReader& reader, const toml::table& table,
                                const std::string& key, const std::filesystem::path& dir,
                                const EnvLookup& env, const std::string& context, Secrets secrets) {
  // Two sources for one secret would leave which one is used to a rule nobody reads.
  const toml::node* first = nullptr;
  for (const auto& variant : {key + "_env", key + "_file", key}) {
    const auto* node = table.get(variant);
    if (node == nullptr) continue;
    if (first != nullptr) {
      return reader.fail(platform::TomlReader::location(*node),
                         "'" + variant + "' in " + context + " is a second source for the " + key +
                             "; keep one of " + key + "_env, " + key + "_file or " + key);
    }
    first = node;
  }
  if (const auto* node = table.get(key + "_env")) {
    auto name = reader.string(*node, "'" + key + "_env' in " + context);
    if (!name) return name;
    auto value = env(*name);
    if (!value || value->empty()) {
      if (secrets == Secrets::optional) return std::string();
      return fail(ErrorCategory::auth, platform::where(reader.file(), platform::TomlReader::location(*node)) +
                                           ": " + key + "_env names $" + *name +
                                           ", which is not set; export it or use " + key + "_file");
    }
    return *value;
  }
  if (const auto* node = table.get(key + "_file")) {
    auto file = reader.string(*node, "'" + key + "_file' in " + context);
    if (!file) return file;
    auto path = std::filesystem::path(*file);
    if (path.is_relative()) path = dir / path;
    auto text = platform::read_regular_file(path, k_max_secret_file_bytes);
    if (!text && secrets == Secrets::optional) return std::string();
    if (!text) {
      return tl::unexpected(
          Error(text.error())
              .with_context(platform::where(reader.file(), platform::TomlReader::location(*node)) +
                            ": reading " + key + "_file"));
    }
    return std::string(core::trim(*text));
  }
  return optional_string(reader, table, key, context, std::string());
}

}  // namespace

std::string tier_name(Tier tier) {
  return "L" + std::to_string(static_cast<int>(tier));
}

const DownstreamRepo* RelayConfig::find(std::string_view repo) const {
  for (const auto& d : downstream) {
    if (same_repo(d.repo, repo)) return &d;
  }
  return nullptr;
}

bool RelayConfig::is_upstream(std::string_view repo) const {
  return same_repo(upstream, repo);
}

Result<RelayConfig> parse_config(std::string_view toml_text, const std::filesystem::path& file,
                                 const EnvLookup& env, Secrets secrets) {
  auto parsed = platform::parse_toml(toml_text, file.string());
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& root = *parsed;
  const platform::TomlReader reader(file.string());
  const auto dir = file.parent_path();
  if (auto ok = reader.check_keys(root, {"relay", "downstream"}, "relay.toml"); !ok)
    return tl::unexpected(ok.error());
  const auto* relay_node = root.get("relay");
  if (relay_node == nullptr) {
    return reader.fail({},
                       "the [relay] table is missing; start the file with [relay] upstream = \"owner/name\"");
  }
  auto relay_table = reader.table(*relay_node, "[relay]");
  if (!relay_table) return tl::unexpected(relay_table.error());
  const toml::table& relay = **relay_table;
  const std::string context = "[relay]";
  if (auto ok = reader.check_keys(
          relay,
          with_secret_keys({"upstream", "branch", "api_base", "max_body_bytes", "zombie_hours",
                            "max_attempts", "backoff_seconds", "fetch_logs", "max_log_bytes", "rules"},
                           {"secret", "token"}),
          context);
      !ok) {
    return tl::unexpected(ok.error());
  }
  RelayConfig config;
  auto upstream = optional_string(reader, relay, "upstream", context, std::string());
  if (!upstream) return tl::unexpected(upstream.error());
  config.upstream = *upstream;
  if (config.upstream.find('/') == std::string::npos) {
    const auto* node = relay.get("upstream");
    return reader.fail(
        node != nullptr ? platform::TomlReader::location(*node) : platform::TomlReader::location(relay),
        "[relay] upstream must be 'owner/name'");
  }
  auto branch = optional_string(reader, relay, "branch", context, config.branch);
  if (!branch) return tl::unexpected(branch.error());
  config.branch = *branch;
  auto api_base = optional_string(reader, relay, "api_base", context, config.api_base);
  if (!api_base) return tl::unexpected(api_base.error());
  config.api_base = *api_base;
  while (!config.api_base.empty() && config.api_base.back() == '/') config.api_base.pop_back();
  // Ranges keep a typo from turning into a relay that never retries or retries in a tight loop.
  if (const auto* node = relay.get("max_body_bytes")) {
    auto value = reader.integer(*node, "'max_body_bytes' in [relay]", 1, std::int64_t{1} << 30);
    if (!value) return tl::unexpected(value.error());
    config.max_body_bytes = static_cast<std::size_t>(*value);
  }
  if (const auto* node = relay.get("zombie_hours")) {
    auto value = reader.integer(*node, "'zombie_hours' in [relay]", 1, 24 * 366);
    if (!value) return tl::unexpected(value.error());
    config.zombie_seconds = *value * 3600;
  }
  if (const auto* node = relay.get("max_attempts")) {
    auto value = reader.integer(*node, "'max_attempts' in [relay]", 1, 100);
    if (!value) return tl::unexpected(value.error());
    config.max_attempts = static_cast<int>(*value);
  }
  if (const auto* node = relay.get("backoff_seconds")) {
    auto value = reader.integer(*node, "'backoff_seconds' in [relay]", 1, 3600);
    if (!value) return tl::unexpected(value.error());
    config.backoff_seconds = *value;
  }
  if (const auto* node = relay.get("fetch_logs")) {
    auto value = reader.boolean(*node, "'fetch_logs' in [relay]");
    if (!value) return tl::unexpected(value.error());
    config.fetch_logs = *value ? FetchLogs::yes : FetchLogs::no;
  }
  if (const auto* node = relay.get("max_log_bytes")) {
    auto value =
        reader.integer(*node, "'max_log_bytes' in [relay]", std::int64_t{1} << 20, std::int64_t{4} << 30);
    if (!value) return tl::unexpected(value.error());
    config.max_log_bytes = static_cast<std::size_t>(*value);
  }
  if (const auto* node = relay.get("rules")) {
    auto rules = reader.string(*node, "'rules' in [relay]");
    if (!rules) return tl::unexpected(rules.error());
    config.rules_file = *rules;
    if (config.rules_file.is_relative()) config.rules_file = dir / config.rules_file;
  }
  auto secret = read_secret(reader, relay, "secret", dir, env, context, secrets);
  if (!secret) return tl::unexpected(secret.error());
  if (secret->empty() && secrets == Secrets::required) {
    return fail(ErrorCategory::auth, platform::where(reader.file(), platform::TomlReader::location(relay)) +
                                         ": [relay] has no webhook secret; set secret_env or secret_file");
  }
  config.webhook_secret = *secret;
  auto token = read_secret(reader, relay, "token", dir, env, context, secrets);
  if (!token) return tl::unexpected(token.error());
  config.upstream_token = *token;

  const auto* downstream = root.get("downstream");
  if (downstream == nullptr) return config;
  auto tables = reader.tables(*downstream, "downstream");
  if (!tables) return tl::unexpected(tables.error());
  for (std::size_t i = 0; i < tables->size(); ++i) {
    const toml::table& table = *(*tables)[i];
    const std::string at = "[[downstream]] #" + std::to_string(i + 1);
    const auto here = platform::TomlReader::location(table);
    if (auto ok = reader.check_keys(
            table, with_secret_keys({"repo", "tier", "device"}, {"token", "callback_secret"}), at);
        !ok) {
      return tl::unexpected(ok.error());
    }
    DownstreamRepo repo;
    auto name = optional_string(reader, table, "repo", at, std::string());
    if (!name) return tl::unexpected(name.error());
    repo.repo = *name;
    if (repo.repo.find('/') == std::string::npos)
      return reader.fail(here, at + ": repo must be 'owner/name'");
    if (config.knows(repo.repo)) {
      return reader.fail(here, at + ": " + repo.repo + " appears twice (a repository has one tier only)");
    }
    if (const auto* node = table.get("tier")) {
      auto tier = reader.choice(*node, "'tier' in " + at, k_tiers);
      if (!tier) return tl::unexpected(tier.error());
      repo.tier = static_cast<Tier>(*tier + 1);
    }
    auto device = optional_string(reader, table, "device", at, std::string());
    if (!device) return tl::unexpected(device.error());
    repo.device = *device;
    if (repo.tier == Tier::l3 && repo.device.empty()) {
      return reader.fail(here, at + ": an L3 repository needs `device` (its label is ciflow/crcr/<device>)");
    }
    auto repo_token = read_secret(reader, table, "token", dir, env, at, secrets);
    if (!repo_token) return tl::unexpected(repo_token.error());
    repo.token = *repo_token;
    auto callback = read_secret(reader, table, "callback_secret", dir, env, at, secrets);
    if (!callback) return tl::unexpected(callback.error());
    repo.callback_secret = *callback;
    config.downstream.push_back(std::move(repo));
  }
  return config;
}

Result<RelayConfig> load_config(const std::filesystem::path& path, const EnvLookup& env, Secrets secrets) {
  auto text = platform::read_regular_file(path, platform::TomlLimits{}.max_bytes);
  if (!text) return tl::unexpected(Error(text.error()).with_context("loading relay config"));
  return parse_config(*text, path, env, secrets);
}

}  // namespace relforge::ci_relay
