#include "matrix/select.hpp"

#include <gtest/gtest.h>

#include "tests/matrix/support.hpp"

namespace relforge::matrix {
namespace {

using test::expand_text;
using test::ids;
using Strings = std::vector<std::string>;

const std::string k_select_config = R"(
[matrix]
build_id = "cp{python|nodot}-{platform}"
[[matrix.axis]]
name = "os"
values = [{ value = "linux", platform = "manylinux_x86_64" }, { value = "windows", platform = "win_amd64" },
          { value = "macos-arm64", platform = "macosx_arm64" }]
[[matrix.axis]]
name = "python"
values = ["3.11", "3.12", "3.14t"]
[[matrix.field]]
name = "platform"
template = "{os.platform}"
)";

Expansion select(const Selection& selection) {
  auto expansion = expand_text(k_select_config);
  EXPECT_TRUE(expansion) << expansion.error().message();
  auto ok = apply_selection(*expansion, selection);
  EXPECT_TRUE(ok) << (ok ? "" : ok.error().message());
  return *expansion;
}

TEST(Select, NoSelectionKeepsEverything) {
  EXPECT_EQ(select({}).cells.size(), 9u);
}

TEST(Select, SelectGlobsOnBuildId) {
  EXPECT_EQ(ids(select({{"cp312-*"}, {}, {}})), (Strings{"linux-3.12", "windows-3.12", "macos-arm64-3.12"}));
}

TEST(Select, BraceExpansionAndSeveralSelectsAreAnyOf) {
  EXPECT_EQ(
      ids(select({{"cp3{11,12}-win*", "*-macosx_arm64"}, {}, {}})),
      (Strings{"windows-3.11", "windows-3.12", "macos-arm64-3.11", "macos-arm64-3.12", "macos-arm64-3.14t"}));
}

TEST(Select, BraceGroupsPastTheCapAreRefusedNamingTheFlag) {
  std::string pattern = "cp";
  for (int i = 0; i < 24; ++i) pattern += "{1,2}";
  for (const auto& selection : {Selection{{pattern}, {}, {}}, Selection{{}, {pattern}, {}}}) {
    auto expansion = expand_text(k_select_config);
    ASSERT_TRUE(expansion);
    const auto refused = apply_selection(*expansion, selection);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(refused.error().describe().find("expands to more than 4096 patterns"), std::string::npos);
    EXPECT_EQ(refused.error().context().front(), selection.select.empty() ? "--skip" : "--select");
  }
}

TEST(Select, ManyGlobsJustUnderTheCapAreRefusedTogether) {
  std::string pattern = "cp";
  for (int i = 0; i < 12; ++i) pattern += "{1,2}";  // 4096 patterns: allowed alone
  Selection selection;
  selection.select.assign(16, pattern);
  auto expansion = expand_text(k_select_config);
  ASSERT_TRUE(expansion);
  EXPECT_EQ(apply_selection(*expansion, selection).error().category(), ErrorCategory::nothing_selected);
  selection.skip.push_back(pattern);
  expansion = expand_text(k_select_config);
  const auto refused = apply_selection(*expansion, selection);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(refused.error().message().find("expand to more than 65536 glob patterns together"),
            std::string::npos)
      << refused.error().message();
}

TEST(Select, SkipWinsOverSelect) {
  EXPECT_EQ(ids(select({{"cp31*-manylinux*"}, {"cp314t-*", "cp311-*"}, {}})), (Strings{"linux-3.12"}));
}

TEST(Select, SkipAlone) {
  EXPECT_EQ(select({{}, {"*-win_amd64", "*-macosx_*"}, {}}).cells.size(), 3u);
}

TEST(Select, OsFiltersOnTheOsField) {
  EXPECT_EQ(ids(select({{}, {}, std::string("mac*")})),
            (Strings{"macos-arm64-3.11", "macos-arm64-3.12", "macos-arm64-3.14t"}));
  EXPECT_EQ(select({{"cp311-*"}, {}, std::string("{linux,windows}")}).cells.size(), 2u);
}

TEST(Select, NothingSelectedIsExitThree) {
  auto expansion = expand_text(k_select_config);
  ASSERT_TRUE(expansion);
  auto ok = apply_selection(*expansion, {{"cp39-*"}, {"*"}, {}});
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error().category(), ErrorCategory::nothing_selected);
  EXPECT_EQ(ok.error().message(),
            "no cell matches --select 'cp39-*' --skip '*' (9 cells on channel 'nightly' before selection)");
}

TEST(Select, OsWithoutAnOsFieldIsAnError) {
  auto expansion = expand_text("[matrix]\n[[matrix.axis]]\nname = \"platform\"\nvalues = [\"a\"]\n");
  ASSERT_TRUE(expansion);
  auto ok = apply_selection(*expansion, {{}, {}, std::string("linux")});
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error().category(), ErrorCategory::invalid_input);
  EXPECT_EQ(ok.error().message(), "--os needs a field named 'os', and this matrix has none");
}

}  // namespace
}  // namespace relforge::matrix
