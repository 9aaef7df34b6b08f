#include "release/config.hpp"
#include "tests/support/paths.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace relforge::release {
namespace {

TEST(ReleaseConfig, DefaultsWithoutReleaseTable) {
  auto config = parse_release_config("[project]\nname = \"x\"\n", "relforge.toml");
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->version_file, "version.txt");
  EXPECT_EQ(config->main_branch, "main");
  EXPECT_EQ(config->last_known_good, "viable/strict");
  EXPECT_TRUE(config->channel_file.empty());
  EXPECT_TRUE(config->replacements.empty());
  EXPECT_EQ(config->final_rc_milestone, 1);
}

TEST(ReleaseConfig, FullTable) {
  auto config = parse_release_config(R"(
[release]
version_file = "VERSION"
main_branch = "trunk"
last_known_good = "green"
channel_file = ".ci/channel"
final_rc_milestone = 2
[[release.replace]]
file = ".github/workflows/a.yml"
from = "@main"
to = "@{branch}"
[[release.replace]]
file = "docker/tag"
from = ":latest"
to = ":{version}"
)",
                                     "relforge.toml");
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->version_file, "VERSION");
  EXPECT_EQ(config->main_branch, "trunk");
  EXPECT_EQ(config->last_known_good, "green");
  EXPECT_EQ(config->channel_file, ".ci/channel");
  EXPECT_EQ(config->final_rc_milestone, 2);
  ASSERT_EQ(config->replacements.size(), 2u);
  EXPECT_EQ(config->replacements[1].files, std::vector<std::string>{"docker/tag"});
  EXPECT_FALSE(config->replacements[1].regex);
  EXPECT_EQ(config->replacements[1].origin, "relforge.toml:12:1");
  EXPECT_EQ(config->replacements[1].to, ":{version}");
}

TEST(ReleaseConfig, ReplaceTakesGlobsAndRegex) {
  auto config = parse_release_config(R"([[release.replace]]
files = ["**/*.yml", ".github/workflows/*.yml"]
from = '(org/\w+)@main'
to = "$1@{branch}"
regex = true
)",
                                     "relforge.toml");
  ASSERT_TRUE(config) << config.error().describe();
  ASSERT_EQ(config->replacements.size(), 1u);
  const auto& rule = config->replacements[0];
  EXPECT_EQ(rule.files, (std::vector<std::string>{"**/*.yml", ".github/workflows/*.yml"}));
  EXPECT_TRUE(rule.regex);
  EXPECT_EQ(rule.from, R"((org/\w+)@main)");
  EXPECT_EQ(rule.origin, "relforge.toml:1:1");
}

TEST(ReleaseConfig, ReplaceRuleErrorsNameTheirLine) {
  const auto message = [](const std::string& text) {
    auto config = parse_release_config(text, "relforge.toml");
    EXPECT_FALSE(config);
    return config ? std::string() : config.error().message();
  };
  const std::string rule = "[[release.replace]]\n";
  EXPECT_NE(message(rule + "file = \"a\"\nfiles = [\"b\"]\nfrom = \"x\"\nto = \"y\"\n")
                .find("exactly one of 'file'"),
            std::string::npos);
  EXPECT_NE(message(rule + "from = \"x\"\nto = \"y\"\n").find("exactly one of"), std::string::npos);
  EXPECT_NE(message(rule + "files = []\nfrom = \"x\"\nto = \"y\"\n").find("relforge.toml:2:"),
            std::string::npos);
  EXPECT_NE(message(rule + "files = [\"\"]\nfrom = \"x\"\nto = \"y\"\n").find("empty entry"),
            std::string::npos);
  EXPECT_NE(
      message(rule + "file = \"a\"\nfrom = \"x\"\nto = \"y\"\nregex = \"yes\"\n").find("relforge.toml:5:"),
      std::string::npos);
  const std::string bad = message("\n" + rule + "file = \"a\"\nfrom = \"(x\"\nto = \"y\"\nregex = true\n");
  EXPECT_NE(bad.find("relforge.toml:4:"), std::string::npos) << bad;
  EXPECT_NE(bad.find("not a valid regular expression"), std::string::npos) << bad;
  const std::string group = message(rule + "file = \"a\"\nfrom = \"(x)\"\nto = \"$2\"\nregex = true\n");
  EXPECT_NE(group.find("'to' does not fit 'from'"), std::string::npos) << group;
  // Without regex = true, "(x" and "$2" are plain text.
  EXPECT_TRUE(parse_release_config(rule + "file = \"a\"\nfrom = \"(x\"\nto = \"$2\"\n", "f"));
}

TEST(ReleaseConfig, ErrorsNameTheProblem) {
  auto unknown = parse_release_config("[release]\nversoin_file = \"v\"\n", "relforge.toml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("relforge.toml:2:"), std::string::npos);
  EXPECT_NE(unknown.error().message().find("versoin_file"), std::string::npos);
  EXPECT_FALSE(parse_release_config("[release]\nfinal_rc_milestone = 0\n", "f"));
  EXPECT_FALSE(parse_release_config("[release]\nversion_file = 3\n", "f"));
  EXPECT_FALSE(parse_release_config("[[release.replace]]\nfile = \"a\"\n", "f"));
  EXPECT_FALSE(parse_release_config("release = 1\n", "f"));
  EXPECT_FALSE(parse_release_config("[release\n", "f"));
}

TEST(ReleaseConfig, UnknownKeysNameTheirPlaceAndTheLikelyKey) {
  auto release = parse_release_config("[release]\nversoin_file = \"v\"\n", "relforge.toml");
  ASSERT_FALSE(release);
  EXPECT_EQ(release.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(release.error().message().find(
                "relforge.toml:2:1: unknown key 'versoin_file' in [release]; did you mean 'version_file'?"),
            std::string::npos)
      << release.error().message();
  auto replace = parse_release_config(
      "[[release.replace]]\nfile = \"a\"\nfrom = \"b\"\nto = \"c\"\n  form = \"d\"\n", "relforge.toml");
  ASSERT_FALSE(replace);
  EXPECT_NE(replace.error().message().find(
                "relforge.toml:5:3: unknown key 'form' in [[release.replace]]; did you mean 'from'?"),
            std::string::npos)
      << replace.error().message();
}

TEST(ReleaseConfig, WrongTypesAndOutOfRangeValuesNameTheirPlace) {
  auto quoted = parse_release_config("[release]\nfinal_rc_milestone = \"2\"\n", "relforge.toml");
  ASSERT_FALSE(quoted);
  EXPECT_NE(quoted.error().message().find(
                "relforge.toml:2:22: 'final_rc_milestone' in [release] must be an integer, not a string"),
            std::string::npos)
      << quoted.error().message();
  auto huge = parse_release_config("[release]\nfinal_rc_milestone = 4294967297\n", "relforge.toml");
  ASSERT_FALSE(huge);
  EXPECT_NE(
      huge.error().message().find("relforge.toml:2:22: 'final_rc_milestone' in [release] is 4294967297"),
      std::string::npos)
      << huge.error().message();
  auto number = parse_release_config("[release]\nmain_branch = 3\n", "relforge.toml");
  ASSERT_FALSE(number);
  EXPECT_NE(number.error().message().find("relforge.toml:2:15: 'main_branch' in [release] must be a string"),
            std::string::npos)
      << number.error().message();
  auto to =
      parse_release_config("[[release.replace]]\nfile = \"a\"\nfrom = \"b\"\nto = false\n", "relforge.toml");
  ASSERT_FALSE(to);
  EXPECT_NE(to.error().message().find("relforge.toml:4:6: 'to' in [[release.replace]] must be a string"),
            std::string::npos)
      << to.error().message();
  auto deletion =
      parse_release_config("[[release.replace]]\nfile = \"a\"\nfrom = \"b\"\nto = \"\"\n", "relforge.toml");
  ASSERT_TRUE(deletion) << deletion.error().describe();
  EXPECT_EQ(deletion->replacements.at(0).to, "");
}

TEST(ReleaseConfig, TheDocumentedExampleStillLoads) {
  std::ifstream doc(relforge::test::source_dir() + "/docs/release.md");
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  const std::string open = "```toml\n[release]\n";
  const auto begin = text.find(open);
  ASSERT_NE(begin, std::string::npos);
  const auto end = text.find("```", begin + open.size());
  ASSERT_NE(end, std::string::npos);
  auto config = parse_release_config(text.substr(begin + 8, end - begin - 8), "relforge.toml");
  ASSERT_TRUE(config) << config.error().describe();
  ASSERT_EQ(config->replacements.size(), 2u);
  EXPECT_TRUE(config->replacements[1].regex);
  EXPECT_EQ(config->replacements[1].files.size(), 2u);
}

TEST(ReleaseConfig, DeepTomlIsRefusedBeforeParsing) {
  const auto deep = parse_release_config(
      "[release]\n" + std::string(1, '[') +
          [] {
            std::string a;
            for (int i = 0; i < 40000; ++i) a += "a.";
            return a;
          }() +
          "a]\n",
      "relforge.toml");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(deep.error().message().find("relforge.toml:2:1: TOML nested deeper than 64 levels"),
            std::string::npos)
      << deep.error().message();
}

}  // namespace
}  // namespace relforge::release
