#include <gtest/gtest.h>

#include <map>

#include "ci_relay/config.hpp"

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

}  // namespace
}  // namespace relforge::ci_relay
