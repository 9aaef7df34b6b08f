// Differential test: the supported-tag list (pip's priority order) against packaging 26.3's
// cpython_tags + compatible_tags with the platform expansion of tests/packaging/oracle_tags.py.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "packaging/supported_tags.hpp"
#include "tests/packaging/oracle_python.hpp"
#include "tests/support/run.hpp"

namespace relforge::packaging {
namespace {

TEST(SupportedTagsOracle, AgreesWithPackaging26) {
  const std::vector<std::string> pythons = {"3.13t", "3.13", "3.12", "3.9",  "3.14t",
                                            "3.2",   "3.1",  "2.7",  "3.15t"};
  const std::vector<std::string> platforms = {"manylinux_2_28_x86_64",
                                              "macosx_14_0_arm64",
                                              "win_amd64",
                                              "musllinux_1_2_x86_64",
                                              "manylinux_2_17_aarch64",
                                              "manylinux2014_x86_64",
                                              "manylinux1_i686",
                                              "manylinux_2_5_x86_64",
                                              "manylinux_3_2_x86_64",
                                              "manylinux_2_31_armv8l",
                                              "musllinux_1_1_aarch64",
                                              "macosx_11_0_x86_64",
                                              "macosx_10_9_x86_64",
                                              "macosx_10_5_ppc64",
                                              "macosx_15_2_arm64",
                                              "macosx_10_4_i386",
                                              "linux_x86_64",
                                              "win32",
                                              "win_arm64",
                                              "manylinux_2_16_aarch64"};
  std::vector<std::pair<std::string, std::string>> cases;
  for (const auto& python : pythons) {
    for (const auto& platform : platforms) cases.emplace_back(python, platform);
  }
  const std::string python = test::oracle_python();
  ASSERT_FALSE(python.empty()) << test::oracle_missing_message();
  const auto dir =
      std::filesystem::temp_directory_path() / ("relforge-tags-oracle-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream file(dir / "cases.txt");
    for (const auto& [py, platform] : cases) file << py << ' ' << platform << '\n';
  }
  const auto run =
      test::run_shell(python + " " + test::shell_quote(test::source_path("tests/packaging/oracle_tags.py")) +
                      " " + test::shell_quote((dir / "cases.txt").string()));
  std::filesystem::remove_all(dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream lines(run.out);
  std::size_t compared = 0, total_tags = 0;
  for (const auto& [py, platform] : cases) {
    std::string expected;
    ASSERT_TRUE(std::getline(lines, expected)) << "the oracle answered too few lines";
    const auto target = parse_python_target(py, platform);
    ASSERT_TRUE(target.has_value()) << py << ": " << target.error().message();
    const auto tags = supported_tags(*target);
    ASSERT_TRUE(tags.has_value()) << py << " " << platform << ": " << tags.error().message();
    std::vector<std::string> ours;
    for (const auto& tag : *tags) ours.push_back(tag.to_string());
    EXPECT_EQ(core::join(ours, ","), expected) << "python " << py << " on " << platform;
    ++compared;
    total_tags += ours.size();
  }
  EXPECT_EQ(compared, cases.size());
  EXPECT_GT(total_tags, 10000u);
}

TEST(SupportedTags, TargetsAndPlatformsExplainThemselves) {
  EXPECT_FALSE(parse_python_target("3", "win_amd64").has_value());
  EXPECT_FALSE(parse_python_target("3.12t", "win_amd64").has_value());  // free-threading starts at 3.13
  EXPECT_FALSE(parse_python_target("three", "win_amd64").has_value());
  const auto t = parse_python_target("cp313t", "win_amd64");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->minor, 13u);
  EXPECT_TRUE(t->free_threaded);
  EXPECT_FALSE(expand_platform("manylinux_2_x86_64").has_value());
  EXPECT_FALSE(expand_platform("macosx_10_3_x86_64").has_value());  // no binary format that old
  EXPECT_FALSE(expand_platform("win-amd64").has_value());
  EXPECT_FALSE(expand_platform("").has_value());
  const auto mac = expand_platform("macosx_14_0_arm64");
  ASSERT_TRUE(mac.has_value());
  EXPECT_EQ(mac->front(), "macosx_14_0_arm64");
  EXPECT_EQ(mac->back(), "macosx_10_4_universal2");
}

}  // namespace
}  // namespace relforge::packaging
