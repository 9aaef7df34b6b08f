#include "ci_relay/config.hpp"

#include <cctype>

#include <toml++/toml.h>

#include "core/text.hpp"
#include "platform/fs.hpp"
#include "platform/toml.hpp"

namespace relforge::ci_relay {
namespace {

// Called for every intake and grid row: compare in place instead of lower-casing two copies.
bool same_repo(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x != y && std::tolower(x) != std::tolower(y)) return false;
  }
  return true;
}

Result<Tier> parse_tier(const std::string& text, const std::string& where) {
  const std::string upper = core::to_lower(text);
  if (upper == "l1") return Tier::l1;
  if (upper == "l2") return Tier::l2;
  if (upper == "l3") return Tier::l3;
  if (upper == "l4") return Tier::l4;
  return fail(ErrorCategory::invalid_input, where + ": tier '" + text + "' is not one of L1, L2, L3, L4");
}

// Reads `key_env`, `key_file` or `key`; empty when none is given.
Result<std::string> read_secret(const toml::table& table, const std::string& key,
                                const std::filesystem::path& dir, const EnvLookup& env,
                                const std::string& where, Secrets secrets) {
  if (auto name = table[key + "_env"].value<std::string>()) {
    auto value = env(*name);
    if (!value || value->empty()) {
      if (secrets == Secrets::optional) return std::string();
      return fail(ErrorCategory::auth, where + ": " + key + "_env names $" + *name +
                                           ", which is not set; export it or use " + key + "_file");
    }
    return *value;
  }
  if (auto file = table[key + "_file"].value<std::string>()) {
    auto path = std::filesystem::path(*file);
    if (path.is_relative()) path = dir / path;
    auto text = platform::read_file(path);
    if (!text && secrets == Secrets::optional) return std::string();
    if (!text) return tl::unexpected(Error(text.error()).with_context(where + ": reading " + key + "_file"));
    return std::string(core::trim(*text));
  }
  return table[key].value_or(std::string());
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
  const auto dir = file.parent_path();
  const auto* relay = root["relay"].as_table();
  const std::string where = file.string() + ": [relay]";
  if (relay == nullptr) return fail(ErrorCategory::invalid_input, where + " table is missing");
  RelayConfig config;
  config.upstream = (*relay)["upstream"].value_or(std::string());
  if (config.upstream.find('/') == std::string::npos) {
    return fail(ErrorCategory::invalid_input, where + ": upstream must be 'owner/name'");
  }
  config.branch = (*relay)["branch"].value_or(config.branch);
  config.api_base = (*relay)["api_base"].value_or(config.api_base);
  while (!config.api_base.empty() && config.api_base.back() == '/') config.api_base.pop_back();
  config.max_body_bytes = static_cast<std::size_t>(
      (*relay)["max_body_bytes"].value_or(static_cast<std::int64_t>(config.max_body_bytes)));
  config.zombie_seconds = (*relay)["zombie_hours"].value_or(std::int64_t{6}) * 3600;
  config.max_attempts = static_cast<int>((*relay)["max_attempts"].value_or(std::int64_t{8}));
  config.backoff_seconds = (*relay)["backoff_seconds"].value_or(std::int64_t{5});
  config.fetch_logs = (*relay)["fetch_logs"].value_or(true) ? FetchLogs::yes : FetchLogs::no;
  if (auto rules = (*relay)["rules"].value<std::string>()) {
    config.rules_file = *rules;
    if (config.rules_file.is_relative()) config.rules_file = dir / config.rules_file;
  }
  auto secret = read_secret(*relay, "secret", dir, env, where, secrets);
  if (!secret) return tl::unexpected(secret.error());
  if (secret->empty() && secrets == Secrets::required) {
    return fail(ErrorCategory::auth, where + ": no webhook secret; set secret_env or secret_file");
  }
  config.webhook_secret = *secret;
  auto token = read_secret(*relay, "token", dir, env, where, secrets);
  if (!token) return tl::unexpected(token.error());
  config.upstream_token = *token;

  if (const auto* list = root["downstream"].as_array()) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto* table = list->get(i)->as_table();
      const std::string at = file.string() + ": [[downstream]] #" + std::to_string(i + 1);
      if (table == nullptr) return fail(ErrorCategory::invalid_input, at + " is not a table");
      DownstreamRepo repo;
      repo.repo = (*table)["repo"].value_or(std::string());
      if (repo.repo.find('/') == std::string::npos) {
        return fail(ErrorCategory::invalid_input, at + ": repo must be 'owner/name'");
      }
      if (config.knows(repo.repo)) {
        return fail(ErrorCategory::invalid_input,
                    at + ": " + repo.repo + " appears twice (a repository has one tier only)");
      }
      auto tier = parse_tier((*table)["tier"].value_or(std::string("L1")), at);
      if (!tier) return tl::unexpected(tier.error());
      repo.tier = *tier;
      repo.device = (*table)["device"].value_or(std::string());
      if (repo.tier == Tier::l3 && repo.device.empty()) {
        return fail(ErrorCategory::invalid_input,
                    at + ": an L3 repository needs `device` (its label is ciflow/crcr/<device>)");
      }
      auto repo_token = read_secret(*table, "token", dir, env, at, secrets);
      if (!repo_token) return tl::unexpected(repo_token.error());
      repo.token = *repo_token;
      auto callback = read_secret(*table, "callback_secret", dir, env, at, secrets);
      if (!callback) return tl::unexpected(callback.error());
      repo.callback_secret = *callback;
      config.downstream.push_back(std::move(repo));
    }
  }
  return config;
}

Result<RelayConfig> load_config(const std::filesystem::path& path, const EnvLookup& env, Secrets secrets) {
  auto text = platform::read_file(path);
  if (!text) return tl::unexpected(Error(text.error()).with_context("loading relay config"));
  return parse_config(*text, path, env, secrets);
}

}  // namespace relforge::ci_relay
