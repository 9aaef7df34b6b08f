// `any = [...]` groups (OR across keys) in rules, and [[matrix.only]] allow-lists.
#include <gtest/gtest.h>

#include "tests/matrix/support.hpp"

namespace relforge::matrix {
namespace {

using test::column;
using test::error_of;
using test::expand_text;
using test::ids;

const std::string k_base = R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows", "macos"]
[[matrix.axis]]
name = "python"
kind = "version"
values = ["3.11", "3.12", "3.13"]
)";

TEST(RulesAny, ExcludeWithAnyRemovesWhatEitherGroupMatches) {
  auto expansion = expand_text(k_base + R"(
[[matrix.exclude]]
python = "3.11"
any = [{ os = "windows" }, { os = "macos" }]
)");
  ASSERT_TRUE(expansion) << expansion.error().message();
  EXPECT_EQ(ids(*expansion),
            (std::vector<std::string>{"linux-3.11", "linux-3.12", "linux-3.13", "windows-3.12",
                                      "windows-3.13", "macos-3.12", "macos-3.13"}));
}

TEST(RulesAny, AnyAloneIsAnOrAcrossKeys) {
  auto expansion = expand_text(k_base + R"(
[[matrix.exclude]]
any = [{ os = "windows" }, { python = ">=3.13" }]
)");
  ASSERT_TRUE(expansion) << expansion.error().message();
  EXPECT_EQ(ids(*expansion),
            (std::vector<std::string>{"linux-3.11", "linux-3.12", "macos-3.11", "macos-3.12"}));
}

TEST(RulesAny, AGroupOnAnotherChannelNeverMatches) {
  const std::string toml = k_base + R"(
[[matrix.exclude]]
any = [{ channel = "release", os = "windows" }, { os = "macos", python = "3.11" }]
)";
  auto nightly = expand_text(toml, "nightly");
  ASSERT_TRUE(nightly) << nightly.error().message();
  EXPECT_EQ(nightly->cells.size(), 8u);  // only macos-3.11 goes
  auto release = expand_text(toml, "release");
  ASSERT_TRUE(release) << release.error().message();
  EXPECT_EQ(release->cells.size(), 5u);  // windows too
}

TEST(RulesAny, WhenWithAny) {
  auto expansion = expand_text(k_base + R"(
[[matrix.field]]
name = "runner"
template = "small"
[[matrix.field]]
name = "runner"
template = "big"
when = { any = [{ os = "macos" }, { python = "3.13" }] }
)");
  ASSERT_TRUE(expansion) << expansion.error().message();
  EXPECT_EQ(column(*expansion, "runner"), (std::vector<std::string>{"small", "small", "big", "small", "small",
                                                                    "big", "big", "big", "big"}));
}

TEST(RulesOnly, OnlyKeepsWhatSomeOnlyRuleMatches) {
  auto expansion = expand_text(k_base + R"(
[[matrix.only]]
os = "linux"
[[matrix.only]]
os = "windows"
python = "3.12"
)");
  ASSERT_TRUE(expansion) << expansion.error().message();
  EXPECT_EQ(ids(*expansion),
            (std::vector<std::string>{"linux-3.11", "linux-3.12", "linux-3.13", "windows-3.12"}));
  EXPECT_EQ(expansion->excluded, 5u);
}

TEST(RulesOnly, OnlyAndExcludeCombineAndOnlyRespectsChannels) {
  const std::string toml = k_base + R"(
[[matrix.only]]
channels = ["release"]
any = [{ python = "3.12" }, { os = "macos" }]
[[matrix.exclude]]
os = "windows"
)";
  auto nightly = expand_text(toml, "nightly");
  ASSERT_TRUE(nightly) << nightly.error().message();
  EXPECT_EQ(nightly->cells.size(), 6u);  // the only rule is off: every os but windows
  auto release = expand_text(toml, "release");
  ASSERT_TRUE(release) << release.error().message();
  EXPECT_EQ(ids(*release),
            (std::vector<std::string>{"linux-3.12", "macos-3.11", "macos-3.12", "macos-3.13"}));
}

TEST(RulesOnly, IncludeAppliesAfterOnly) {
  auto expansion = expand_text(k_base + R"(
[[matrix.only]]
os = "linux"
[[matrix.include]]
os = "freebsd"
python = "3.12"
)");
  ASSERT_TRUE(expansion) << expansion.error().message();
  EXPECT_EQ(ids(*expansion),
            (std::vector<std::string>{"linux-3.11", "linux-3.12", "linux-3.13", "freebsd-3.12"}));
}

TEST(RulesErrors, StrictErrorsAtFileLineColumn) {
  EXPECT_EQ(error_of(k_base + R"(
[[matrix.only]]
channels = ["nightly"]
)"),
            "t.toml:11:1: [[matrix.only]] has no keys to match: it would keep every cell");
  EXPECT_EQ(error_of(k_base + R"(
[[matrix.exclude]]
any = { os = "linux" }
)"),
            "t.toml:12:7: [[matrix.exclude]] any must be a list of tables (any = [{ os = \"linux\" }, "
            "{ python = \"3.12\" }]), not a table");
  EXPECT_EQ(error_of(k_base + R"(
[[matrix.exclude]]
any = []
)"),
            "t.toml:12:7: [[matrix.exclude]] any is an empty list: it would match nothing");
  EXPECT_EQ(
      error_of(k_base + R"(
[[matrix.exclude]]
any = [{ os = "linux" }, {}]
)"),
      "t.toml:12:26: [[matrix.exclude]] any has an empty table: it would match every cell; remove it or "
      "give it keys");
  EXPECT_EQ(
      error_of(k_base + R"(
[[matrix.exclude]]
any = [{ os = "linux", channels = ["test"] }]
)"),
      "t.toml:12:24: 'channels' cannot be inside [[matrix.exclude]] any: put it beside 'any' in the rule");
  EXPECT_EQ(error_of(k_base + R"(
[[matrix.exclude]]
any = ["linux"]
)"),
            "t.toml:12:8: [[matrix.exclude]] any must list tables ({ key = value, ... }), not a string");
  // Names inside a group are checked like any rule key.
  EXPECT_EQ(error_of(k_base + R"(
[[matrix.only]]
any = [{ os = "linux" }, { pyton = "3.12" }]
)"),
            "t.toml:12:28: [[matrix.only]] any names 'pyton', which is not an axis; did you mean 'python'?");
  EXPECT_EQ(error_of(k_base + R"(
[[matrix.only]]
os = "linux"
colour = "red"
)"),
            "t.toml:13:1: [[matrix.only]] names 'colour', which is not an axis; expected one of: os, python");
}

}  // namespace
}  // namespace relforge::matrix
