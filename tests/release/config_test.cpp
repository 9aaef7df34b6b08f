#include "release/config.hpp"

#include <gtest/gtest.h>

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
  EXPECT_EQ(config->replacements[1].file, "docker/tag");
  EXPECT_EQ(config->replacements[1].to, ":{version}");
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
