#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "ci_relay/config.hpp"
#include "ci_relay/relay.hpp"
#include "tests/support/paths.hpp"

namespace relforge::ci_relay {
namespace {

EnvLookup env_with(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

constexpr const char* k_config = R"(
[relay]
upstream = "up/runtime"
branch = "main"
secret_env = "RELAY_SECRET"
api_base = "http://127.0.0.1:9/"

[[downstream]]
repo = "v/accel"
tier = "L4"
token_env = "ACCEL_TOKEN"
callback_secret_env = "ACCEL_CALLBACK"

[[downstream]]
repo = "v/vision"
tier = "L3"
device = "vision"
)";

TEST(RelayConfig, ReadsTiersSecretsFromEnvironmentAndTrimsApiBase) {
  auto config =
      parse_config(k_config, "relay.toml",
                   env_with({{"RELAY_SECRET", "s"}, {"ACCEL_TOKEN", "t"}, {"ACCEL_CALLBACK", "c"}}));
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->webhook_secret, "s");
  EXPECT_EQ(config->api_base, "http://127.0.0.1:9");
  ASSERT_EQ(config->downstream.size(), 2U);
  EXPECT_EQ(config->downstream[0].tier, Tier::l4);
  EXPECT_EQ(config->downstream[0].token, "t");
  EXPECT_EQ(config->downstream[0].callback_secret, "c");
  EXPECT_EQ(config->downstream[1].device, "vision");
  EXPECT_TRUE(config->knows("V/Accel"));
  EXPECT_TRUE(config->is_upstream("UP/runtime"));
  EXPECT_FALSE(config->knows("x/y"));
}

TEST(RelayConfig, MissingSecretIsAnAuthErrorNamingTheVariableButNotItsValue) {
  auto config = parse_config(k_config, "relay.toml", env_with({{"ACCEL_TOKEN", "t"}}));
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().category(), ErrorCategory::auth);
  EXPECT_NE(config.error().describe().find("RELAY_SECRET"), std::string::npos);
  auto lenient = parse_config(k_config, "relay.toml", env_with({}), Secrets::optional);
  ASSERT_TRUE(lenient) << lenient.error().describe();
  EXPECT_TRUE(lenient->webhook_secret.empty());
}

TEST(RelayConfig, RejectsBadTierDuplicateRepoAndUngatedL3) {
  auto env = env_with({{"S", "x"}});
  auto bad_tier = parse_config(
      "[relay]\nupstream='a/b'\nsecret_env='S'\n[[downstream]]\nrepo='c/d'\ntier='L9'\n", "r.toml", env);
  ASSERT_FALSE(bad_tier);
  EXPECT_NE(bad_tier.error().message().find("L9"), std::string::npos);
  auto twice = parse_config(
      "[relay]\nupstream='a/b'\nsecret_env='S'\n[[downstream]]\nrepo='c/d'\n[[downstream]]\nrepo='C/D'\n",
      "r.toml", env);
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find("one tier only"), std::string::npos);
  auto l3 = parse_config("[relay]\nupstream='a/b'\nsecret_env='S'\n[[downstream]]\nrepo='c/d'\ntier='L3'\n",
                         "r.toml", env);
  ASSERT_FALSE(l3);
  EXPECT_NE(l3.error().message().find("device"), std::string::npos);
  auto broken = parse_config("[relay\n", "r.toml", env);
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().category(), ErrorCategory::invalid_input);
}

TEST(RelayConfig, UnknownKeyNamesItsPlaceAndTheLikelyKey) {
  auto env = env_with({{"S", "x"}});
  auto relay = parse_config("[relay]\nupstream='a/b'\nsecret_env='S'\nfetch_log = false\n", "r.toml", env);
  ASSERT_FALSE(relay);
  EXPECT_EQ(relay.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(relay.error().message().find(
                "r.toml:4:1: unknown key 'fetch_log' in [relay]; did you mean 'fetch_logs'?"),
            std::string::npos)
      << relay.error().message();
  auto downstream = parse_config(
      "[relay]\nupstream='a/b'\nsecret_env='S'\n[[downstream]]\nrepo='c/d'\n  teir = 'L2'\n", "r.toml", env);
  ASSERT_FALSE(downstream);
  EXPECT_NE(downstream.error().message().find(
                "r.toml:6:3: unknown key 'teir' in [[downstream]] #1; did you mean 'tier'?"),
            std::string::npos)
      << downstream.error().message();
  auto top =
      parse_config("[relay]\nupstream='a/b'\nsecret_env='S'\n[[downstreams]]\nrepo='c/d'\n", "r.toml", env);
  ASSERT_FALSE(top);
  EXPECT_NE(top.error().message().find("r.toml:4:3: unknown key 'downstreams'"), std::string::npos)
      << top.error().message();
  EXPECT_NE(top.error().message().find("did you mean 'downstream'?"), std::string::npos);
}

TEST(RelayConfig, WrongTypesAndOutOfRangeValuesAreRefusedWhereTheyAre) {
  auto env = env_with({{"S", "x"}});
  const std::string head = "[relay]\nupstream='a/b'\nsecret_env='S'\n";
  // A bare number for a tier used to fall back to L1 without a word.
  auto tier = parse_config(head + "[[downstream]]\nrepo='c/d'\ntier = 2\n", "r.toml", env);
  ASSERT_FALSE(tier);
  EXPECT_EQ(tier.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(tier.error().message().find("r.toml:6:8: 'tier' in [[downstream]] #1 must be a string"),
            std::string::npos)
      << tier.error().message();
  auto typo_tier = parse_config(head + "[[downstream]]\nrepo='c/d'\ntier = 'L5'\n", "r.toml", env);
  ASSERT_FALSE(typo_tier);
  EXPECT_NE(typo_tier.error().message().find("r.toml:6:8:"), std::string::npos)
      << typo_tier.error().message();
  auto fetch = parse_config(head + "fetch_logs = 'no'\n", "r.toml", env);
  ASSERT_FALSE(fetch);
  EXPECT_NE(fetch.error().message().find(
                "r.toml:4:14: 'fetch_logs' in [relay] must be true or false, not a string"),
            std::string::npos)
      << fetch.error().message();
  auto attempts = parse_config(head + "max_attempts = 0\n", "r.toml", env);
  ASSERT_FALSE(attempts);
  EXPECT_NE(attempts.error().message().find(
                "r.toml:4:16: 'max_attempts' in [relay] is 0; it must be between 1 and 100"),
            std::string::npos)
      << attempts.error().message();
  auto log_limit = parse_config(head + "max_log_bytes = 1000\n", "r.toml", env);
  ASSERT_FALSE(log_limit);
  EXPECT_NE(log_limit.error().message().find("r.toml:4:17: 'max_log_bytes' in [relay] is 1000; it must be "
                                             "between 1048576 and 4294967296"),
            std::string::npos)
      << log_limit.error().message();
  auto roomy = parse_config(head + "max_log_bytes = 1073741824\n", "r.toml", env);
  ASSERT_TRUE(roomy) << roomy.error().describe();
  EXPECT_EQ(roomy->max_log_bytes, std::size_t{1} << 30);
  auto hours = parse_config(head + "zombie_hours = '6'\n", "r.toml", env);
  ASSERT_FALSE(hours);
  EXPECT_NE(
      hours.error().message().find("r.toml:4:16: 'zombie_hours' in [relay] must be an integer, not a string"),
      std::string::npos)
      << hours.error().message();
  auto secret = parse_config("[relay]\nupstream='a/b'\nsecret_env=1\n", "r.toml", env);
  ASSERT_FALSE(secret);
  EXPECT_NE(secret.error().message().find("r.toml:3:12: 'secret_env' in [relay] must be a string"),
            std::string::npos)
      << secret.error().message();
}

TEST(RelayConfig, TwoSourcesForOneSecretAreRefused) {
  auto both = parse_config("[relay]\nupstream='a/b'\nsecret_env='S'\nsecret_file='s.txt'\n", "r.toml",
                           env_with({{"S", "x"}}));
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(
      both.error().message().find("r.toml:4:13: 'secret_file' in [relay] is a second source for the secret"),
      std::string::npos)
      << both.error().message();
}

TEST(RelayConfig, DuplicateRepositoryNamesItsLine) {
  auto twice = parse_config(
      "[relay]\nupstream='a/b'\nsecret_env='S'\n[[downstream]]\nrepo='c/d'\n"
      "[[downstream]]\nrepo='C/D'\n",
      "r.toml", env_with({{"S", "x"}}));
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find("r.toml:6:"), std::string::npos) << twice.error().message();
}

TEST(RelayConfig, TheBundledFixtureAndTheDocumentedExampleStillLoad) {
  auto fixture = load_config(relforge::test::source_dir() + "/tests/fixtures/relay/relay.toml",
                             env_with({{"RELAY_WEBHOOK_SECRET", "s"}}));
  ASSERT_TRUE(fixture) << fixture.error().describe();
  EXPECT_EQ(fixture->downstream.size(), 4U);
  std::ifstream doc(relforge::test::source_dir() + "/docs/relay.md");
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  const std::string open = "### relay.toml\n\n```toml\n";
  const auto begin = text.find(open);
  ASSERT_NE(begin, std::string::npos);
  const auto end = text.find("```", begin + open.size());
  ASSERT_NE(end, std::string::npos);
  auto documented = parse_config(text.substr(begin + open.size(), end - begin - open.size()), "relay.toml",
                                 env_with({}), Secrets::optional);
  ASSERT_TRUE(documented) << documented.error().describe();
  EXPECT_EQ(documented->downstream.size(), 2U);
  EXPECT_EQ(documented->fetch_logs, FetchLogs::yes);
}

TEST(RelayConfig, DeepTomlIsRefusedBeforeParsing) {
  const auto deep = parse_config(
      "[relay]\n" + std::string(1, '[') +
          [] {
            std::string a;
            for (int i = 0; i < 40000; ++i) a += "a.";
            return a;
          }() +
          "a]\n",
      "r.toml", env_with({}));
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(deep.error().message().find("r.toml:2:1: TOML nested deeper than 64 levels"), std::string::npos)
      << deep.error().message();
}

// A scratch folder of this test process.
std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("relforge-relay-config-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Config paths were read whole by a plain read: a FIFO hung the relay, /dev/zero ate memory, and
// a 20 MB relay.toml was read before the 8 MiB refusal. Only regular files, and only up to the cap.
TEST(RelayConfig, FifosDevicesAndHugeFilesAreRefusedNotReadForEver) {
  const auto dir = scratch("hostile");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  const auto env = env_with({{"RELAY_SECRET", "s"}});
  for (const std::filesystem::path& config : {dir / "fifo", std::filesystem::path("/dev/zero"), dir}) {
    auto loaded = load_config(config, env);
    ASSERT_FALSE(loaded) << config;
    EXPECT_EQ(loaded.error().category(), ErrorCategory::invalid_input) << loaded.error().describe();
    EXPECT_NE(loaded.error().describe().find("not a regular file"), std::string::npos)
        << loaded.error().describe();
  }
  write(dir / "huge.toml", std::string(20u << 20, '#'));
  auto huge = load_config(dir / "huge.toml", env);
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().describe().find("larger than 8388608 bytes"), std::string::npos)
      << huge.error().describe();

  for (const std::string secret : {"fifo", "/dev/zero"}) {
    write(dir / "relay.toml", "[relay]\nupstream = \"up/runtime\"\nsecret_file = \"" + secret + "\"\n");
    auto loaded = load_config(dir / "relay.toml", env_with({}));
    ASSERT_FALSE(loaded) << secret;
    EXPECT_NE(loaded.error().describe().find("relay.toml:3:15: reading secret_file"), std::string::npos)
        << loaded.error().describe();
    EXPECT_NE(loaded.error().describe().find("not a regular file"), std::string::npos)
        << loaded.error().describe();
  }
  write(dir / "secret", "  s3cret\n");
  write(dir / "relay.toml", "[relay]\nupstream = \"up/runtime\"\nsecret_file = \"secret\"\n");
  auto plain = load_config(dir / "relay.toml", env_with({}));
  ASSERT_TRUE(plain) << plain.error().describe();
  EXPECT_EQ(plain->webhook_secret, "s3cret");
  std::filesystem::remove_all(dir);
}

TEST(RelayConfig, RulesThatAreAFifoOrADeviceAreRefusedNotWaitedOn) {
  const auto dir = scratch("rules");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  for (const std::filesystem::path& rules : {dir / "fifo", std::filesystem::path("/dev/zero")}) {
    RelayConfig config;
    config.upstream = "up/runtime";
    config.rules_file = rules;
    auto relay = Relay::open(config, ":memory:");
    ASSERT_FALSE(relay) << rules;
    EXPECT_NE(relay.error().describe().find("not a regular file"), std::string::npos)
        << relay.error().describe();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace relforge::ci_relay
