#include "builders/build_config.hpp"
#include "tests/support/paths.hpp"

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
      typo.error().message().find("t.toml:3:1: unknown key 'timout' in [recipe]; did you mean 'timeout'?"),
      std::string::npos)
      << typo.error().message();
  const auto none = parse_build_config("[matrix]\n", "t.toml");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("no [recipe] table"), std::string::npos);
  EXPECT_FALSE(parse_build_config("[recipe]\ncommand = []\n", "t.toml"));
  EXPECT_FALSE(parse_build_config("[recipe]\ncommand = [\"x\"]\n[[runner]]\nlabels = [\"a\"]\n", "t.toml"));
}

TEST(BuildConfig, UnknownRunnerKeyNamesItsPlaceAndTheLikelyKey) {
  const auto typo =
      parse_build_config("[recipe]\ncommand = [\"x\"]\n[[runner]]\nname = \"a\"\nslot = 2\n", "t.toml");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(
      typo.error().message().find("t.toml:5:1: unknown key 'slot' in [[runner]]; did you mean 'slots'?"),
      std::string::npos)
      << typo.error().message();
}

TEST(BuildConfig, WrongTypesAndOutOfRangeValuesAreRefusedWhereTheyAre) {
  const std::string recipe = "[recipe]\ncommand = [\"x\"]\n";
  const auto quoted = parse_build_config(recipe + "timeout = \"60\"\n", "t.toml");
  ASSERT_FALSE(quoted);
  EXPECT_NE(quoted.error().message().find(
                "t.toml:3:11: [recipe] timeout (seconds) must be an integer, not a string"),
            std::string::npos)
      << quoted.error().message();
  const auto zero = parse_build_config(recipe + "timeout = 0\n", "t.toml");
  ASSERT_FALSE(zero);
  EXPECT_NE(
      zero.error().message().find("t.toml:3:11: [recipe] timeout (seconds) is 0; it must be between 1 and"),
      std::string::npos)
      << zero.error().message();
  const auto code = parse_build_config(recipe + "retryable_exit_codes = [75, 300]\n", "t.toml");
  ASSERT_FALSE(code);
  EXPECT_NE(code.error().message().find("t.toml:3:29: [recipe] retryable_exit_codes (each element) is 300"),
            std::string::npos)
      << code.error().message();
  const auto slots = parse_build_config(recipe + "[[runner]]\nname = \"a\"\nslots = -1\n", "t.toml");
  ASSERT_FALSE(slots);
  EXPECT_NE(slots.error().message().find("t.toml:5:9: [[runner]] slots is -1"), std::string::npos)
      << slots.error().message();
  const auto kit =
      parse_build_config(recipe + "[[runner]]\nname = \"a\"\ntoolkits = { cuda = 13.0 }\n", "t.toml");
  ASSERT_FALSE(kit);
  EXPECT_NE(kit.error().message().find("t.toml:5:21:"), std::string::npos) << kit.error().message();
  EXPECT_NE(kit.error().message().find("must be a string, not a float"), std::string::npos);
  const auto build = parse_build_config("[build]\nversion = 1\n" + recipe, "t.toml");
  ASSERT_FALSE(build);
  EXPECT_NE(build.error().message().find("t.toml:2:11: [build] version must be a string"), std::string::npos)
      << build.error().message();
}

TEST(BuildConfig, TheRelforgeVersionTheJobsInstallMustBeAVersion) {
  // It becomes `pip install relforge==VERSION` in every job, which is where a bad one used to fail.
  const std::string recipe = "[recipe]\ncommand = [\"x\"]\n";
  for (const char* version : {"0.3.0 ; id", "latest", ""}) {
    SCOPED_TRACE(version);
    const auto config =
        parse_build_config(recipe + "[ci]\nrelforge_index = \"https://example.com/simple\"\n" +
                               "relforge_version = \"" + version + "\"\n",
                           "t.toml");
    ASSERT_FALSE(config);
    EXPECT_NE(config.error().message().find("t.toml:5:20: [ci] relforge_version"), std::string::npos)
        << config.error().message();
  }
  const auto good = parse_build_config(
      recipe + "[ci]\nrelforge_index = \"https://example.com/simple\"\nrelforge_version = \"0.4.0rc1\"\n",
      "t.toml");
  ASSERT_TRUE(good) << good.error().message();
  EXPECT_EQ(good->ci.relforge_version, "0.4.0rc1");
}

TEST(BuildConfig, TheExampleProjectStillLoads) {
  const auto config = load_build_config(relforge::test::source_dir() + "/examples/minitensor/relforge.toml");
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->recipe.retryable_exit_codes, std::vector<int>{75});
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
