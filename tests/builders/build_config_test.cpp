#include "builders/build_config.hpp"

#include <gtest/gtest.h>

namespace relforge::builders {
namespace {

TEST(BuildConfig, ParsesRecipeBuildAndRunners) {
  const auto config = parse_build_config(
      "[matrix]\nid = \"x\"\n[build]\nversion = \"1.2.3\"\n[recipe]\ncommand = [\"bash\", "
      "\"build.sh\"]\ntimeout = 60\n"
      "retries = 2\nretryable_exit_codes = [75]\nsmoke = [\"import x\"]\n[recipe.env]\nA = \"{python}\"\n"
      "[[runner]]\nname = \"gpu\"\nlabels = [\"linux.g5\"]\npythons = [\"3.12\"]\ntoolkits = { cuda = "
      "\"12.6\" }\ngpus = 1\n",
      "t.toml");
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->version, "1.2.3");
  EXPECT_EQ(config->recipe.command, (std::vector<std::string>{"bash", "build.sh"}));
  EXPECT_EQ(config->recipe.timeout.count(), 60);
  EXPECT_EQ(config->recipe.retries, 2);
  EXPECT_EQ(config->recipe.env.at("A"), "{python}");
  ASSERT_EQ(config->runners.size(), 1u);
  EXPECT_EQ(config->runners[0].toolkit("cuda")->version, "12.6");
  EXPECT_NE(config->runners[0].python("3.12"), nullptr);
}

TEST(BuildConfig, UnknownKeysAndMissingRecipeAreClearErrors) {
  const auto typo = parse_build_config("[recipe]\ncommand = [\"x\"]\ntimout = 5\n", "t.toml");
  ASSERT_FALSE(typo);
  EXPECT_NE(
      typo.error().message().find("t.toml:3:10: unknown key 'timout' in [recipe]; did you mean 'timeout'?"),
      std::string::npos)
      << typo.error().message();
  const auto none = parse_build_config("[matrix]\n", "t.toml");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("no [recipe] table"), std::string::npos);
  EXPECT_FALSE(parse_build_config("[recipe]\ncommand = []\n", "t.toml"));
  EXPECT_FALSE(parse_build_config("[recipe]\ncommand = [\"x\"]\n[[runner]]\nlabels = [\"a\"]\n", "t.toml"));
}

TEST(BuildConfig, DeepTomlIsRefusedBeforeParsing) {
  const auto deep = parse_build_config(
      "[recipe]\n" + std::string(1, '[') +
          [] {
            std::string a;
            for (int i = 0; i < 40000; ++i) a += "a.";
            return a;
          }() +
          "a]\n",
      "t.toml");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(deep.error().message().find("t.toml:2:1: TOML nested deeper than 64 levels"), std::string::npos)
      << deep.error().message();
}

}  // namespace
}  // namespace relforge::builders
