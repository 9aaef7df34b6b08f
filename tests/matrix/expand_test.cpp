// Expansion semantics: product order, zip, channels, exclude, include (GitHub Actions), ids.
#include "matrix/expand.hpp"

#include <gtest/gtest.h>

#include "tests/matrix/support.hpp"

namespace relforge::matrix {
namespace {

using test::column;
using test::error_of;
using test::expand_text;
using test::ids;
using Strings = std::vector<std::string>;

const std::string k_two_axes = R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "python"
values = ["3.10", "3.11", "3.12"]
)";

TEST(Expand, FirstAxisIsTheOuterLoop) {
  auto e = expand_text(k_two_axes);
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(ids(*e), (Strings{"linux-3.10", "linux-3.11", "linux-3.12", "windows-3.10", "windows-3.11",
                              "windows-3.12"}));
  EXPECT_EQ(e->combinations, 6u);
  EXPECT_EQ(e->channel, "nightly");
}

TEST(Expand, BuildIdDefaultsToId) {
  auto e = expand_text(k_two_axes);
  ASSERT_TRUE(e);
  for (const auto& cell : e->cells) EXPECT_EQ(cell.build_id(), cell.id());
}

TEST(Expand, FieldsAreAxesThenAttributesThenIncludeKeysThenDerivedThenChannel) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "accel"
values = [{ value = "cpu", type = "cpu" }, { value = "cu126", type = "cuda", version = "12.6" }]
[[matrix.axis]]
name = "python"
values = ["3.12"]
[[matrix.include]]
accel = "cpu"
runner = "linux.2xlarge"
[[matrix.field]]
name = "desired"
template = "{accel}"
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(*e->names,
            (Strings{"accel", "python", "accel.type", "accel.version", "runner", "desired", "channel"}));
  const Cell& cpu = e->cells[0];
  EXPECT_EQ(cpu.values(), (Strings{"cpu", "3.12", "cpu", "", "linux.2xlarge", "cpu", "nightly"}));
  const Cell& cuda = e->cells[1];
  EXPECT_EQ(cuda.values(), (Strings{"cu126", "3.12", "cuda", "12.6", "", "cu126", "nightly"}));
}

TEST(Expand, AttributesRenderScalarsAsText) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "a"
values = [{ value = "x", n = 3, f = 1.5, on = true, off = false }]
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(column(*e, "a.n"), (Strings{"3"}));
  EXPECT_EQ(column(*e, "a.f"), (Strings{"1.5"}));
  EXPECT_EQ(column(*e, "a.on"), (Strings{"true"}));
  EXPECT_EQ(column(*e, "a.off"), (Strings{"false"}));
}

TEST(Expand, ZipAdvancesAxesTogether) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "python"
values = ["3.10", "3.11"]
[[matrix.axis]]
name = "image"
values = ["img310", "img311"]
[[matrix.zip]]
axes = ["python", "image"]
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(ids(*e), (Strings{"linux-3.10-img310", "linux-3.11-img311", "windows-3.10-img310",
                              "windows-3.11-img311"}));
  EXPECT_EQ(e->combinations, 4u);
}

TEST(Expand, ZipGroupSitsWhereItsFirstListedAxisIs) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "image"
values = ["i1", "i2"]
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "python"
values = ["3.10", "3.11"]
[[matrix.zip]]
axes = ["python", "image"]
)");
  ASSERT_TRUE(e) << e.error().message();
  // The group (python, image) is the inner loop, where python is; ids keep declaration order.
  EXPECT_EQ(ids(*e), (Strings{"i1-linux-3.10", "i2-linux-3.11", "i1-windows-3.10", "i2-windows-3.11"}));
}

TEST(Expand, ZipLengthsAreCountedAfterChannelFiltering) {
  const std::string toml = R"(
[matrix]
[[matrix.axis]]
name = "python"
values = ["3.10", { value = "3.15", channels = ["nightly"] }]
[[matrix.axis]]
name = "image"
values = ["a", { value = "b", channels = ["nightly"] }]
[[matrix.zip]]
axes = ["python", "image"]
)";
  auto nightly = expand_text(toml, "nightly");
  ASSERT_TRUE(nightly) << nightly.error().message();
  EXPECT_EQ(ids(*nightly), (Strings{"3.10-a", "3.15-b"}));
  auto release = expand_text(toml, "release");
  ASSERT_TRUE(release) << release.error().message();
  EXPECT_EQ(ids(*release), (Strings{"3.10-a"}));
}

TEST(Expand, ValuesRestrictedToChannels) {
  const std::string toml = R"(
[matrix]
[[matrix.axis]]
name = "python"
values = ["3.13", { value = "3.15", channels = ["nightly", "test"] }]
)";
  EXPECT_EQ(ids(*expand_text(toml, "nightly")), (Strings{"3.13", "3.15"}));
  EXPECT_EQ(ids(*expand_text(toml, "test")), (Strings{"3.13", "3.15"}));
  EXPECT_EQ(ids(*expand_text(toml, "release")), (Strings{"3.13"}));
  EXPECT_EQ(column(*expand_text(toml, "test"), "channel"), (Strings{"test", "test"}));
}

TEST(Expand, CustomChannelList) {
  const std::string toml = R"(
[matrix]
channels = ["dev", "stable"]
[[matrix.axis]]
name = "python"
values = ["3.13", { value = "3.15", channels = ["dev"] }]
)";
  EXPECT_EQ(ids(*expand_text(toml, "dev")), (Strings{"3.13", "3.15"}));
  EXPECT_EQ(ids(*expand_text(toml, "stable")), (Strings{"3.13"}));
  EXPECT_NE(error_of(toml, "nightly").find("unknown channel 'nightly'"), std::string::npos);
}

TEST(Exclude, RemovesEveryCombinationItMatches) {
  auto e = expand_text(k_two_axes + R"(
[[matrix.exclude]]
os = "windows"
python = ["3.10", "3.12"]
)");
  ASSERT_TRUE(e);
  EXPECT_EQ(ids(*e), (Strings{"linux-3.10", "linux-3.11", "linux-3.12", "windows-3.11"}));
  EXPECT_EQ(e->excluded, 2u);
}

TEST(Exclude, PartialMatchRemovesAcrossOtherAxes) {
  auto e = expand_text(k_two_axes + R"(
[[matrix.exclude]]
python = "3.1[01]"
)");
  ASSERT_TRUE(e);
  EXPECT_EQ(ids(*e), (Strings{"linux-3.12", "windows-3.12"}));
}

TEST(Exclude, OnlyOnItsChannels) {
  const std::string toml = k_two_axes + R"(
[[matrix.exclude]]
os = "windows"
channels = ["release"]
)";
  EXPECT_EQ(expand_text(toml, "nightly")->cells.size(), 6u);
  EXPECT_EQ(ids(*expand_text(toml, "release")), (Strings{"linux-3.10", "linux-3.11", "linux-3.12"}));
}

TEST(Exclude, ChannelKeyIsAMatcher) {
  const std::string toml = k_two_axes + R"(
[[matrix.exclude]]
os = "windows"
channel = "{test,release}"
)";
  EXPECT_EQ(expand_text(toml, "nightly")->cells.size(), 6u);
  EXPECT_EQ(expand_text(toml, "test")->cells.size(), 3u);
  EXPECT_EQ(expand_text(toml, "release")->cells.size(), 3u);
}

TEST(Exclude, MatchesAttributes) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "accel"
values = [{ value = "cpu", type = "cpu" }, { value = "rocm7.2", type = "rocm" }]
[[matrix.exclude]]
os = "windows"
"accel.type" = "rocm"
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(ids(*e), (Strings{"linux-cpu", "linux-rocm7.2", "windows-cpu"}));
}

TEST(Exclude, SpecifierOnVersionAxis) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows-arm64"]
[[matrix.axis]]
name = "python"
kind = "version"
values = ["3.10", "3.11", "3.13", "3.14", "3.14t"]
[[matrix.exclude]]
os = "windows-arm64"
python = ["<3.11", ">=3.14"]
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(ids(*e), (Strings{"linux-3.10", "linux-3.11", "linux-3.13", "linux-3.14", "linux-3.14t",
                              "windows-arm64-3.11", "windows-arm64-3.13"}));
}

TEST(Exclude, SpecifierUsesTheVersionAttribute) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "accel"
values = [{ value = "cpu", version = "" }, { value = "cu126", version = "12.6" },
          { value = "cu130", version = "13.0" }, { value = "rocm7.14", version = "7.14" },
          { value = "rocm7.2", version = "7.2" }]
[[matrix.exclude]]
accel = [">=13", ">7.2,<8"]
)");
  ASSERT_TRUE(e) << e.error().message();
  // 7.14 > 7.2 numerically; cpu has no version, so no specifier matches it.
  EXPECT_EQ(ids(*e), (Strings{"cpu", "cu126", "rocm7.2"}));
}

TEST(Include, AddsKeysToMatchingCombinations) {
  auto e = expand_text(k_two_axes + R"(
[[matrix.include]]
os = "windows"
runner = "windows.4xlarge"
[[matrix.include]]
runner_label = "all"
)");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->cells.size(), 6u);
  EXPECT_EQ(column(*e, "runner"),
            (Strings{"", "", "", "windows.4xlarge", "windows.4xlarge", "windows.4xlarge"}));
  EXPECT_EQ(column(*e, "runner_label"), (Strings(6, "all")));
}

TEST(Include, LaterIncludeOverwritesAddedValues) {
  auto e = expand_text(k_two_axes + R"(
[[matrix.include]]
runner = "small"
[[matrix.include]]
python = "3.12"
runner = "big"
)");
  ASSERT_TRUE(e);
  EXPECT_EQ(column(*e, "runner"), (Strings{"small", "small", "big", "small", "small", "big"}));
}

TEST(Include, OverwritesAttributesButNeverOriginalAxisValues) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "linux-aarch64"]
[[matrix.axis]]
name = "accel"
values = [{ value = "cpu", type = "cpu" }, { value = "cu126", type = "cuda" }]
[[matrix.include]]
os = "linux-aarch64"
accel = "cu*"
"accel.type" = "cuda-aarch64"
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(ids(*e), (Strings{"linux-cpu", "linux-cu126", "linux-aarch64-cpu", "linux-aarch64-cu126"}));
  EXPECT_EQ(column(*e, "accel.type"), (Strings{"cpu", "cuda", "cpu", "cuda-aarch64"}));
}

TEST(Include, ThatMatchesNothingBecomesANewCombination) {
  auto e = expand_text(k_two_axes + R"(
[[matrix.include]]
os = "macos"
python = "3.12"
runner = "macos-14"
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(e->cells.size(), 7u);
  EXPECT_EQ(e->included, 1u);
  EXPECT_EQ(e->cells.back().id(), "macos-3.12");
  EXPECT_EQ(column(*e, "runner").back(), "macos-14");
}

TEST(Include, NewCombinationDoesNotAbsorbLaterIncludes) {
  // GitHub Actions: includes are matched against the original combinations only.
  auto e = expand_text(k_two_axes + R"(
[[matrix.include]]
os = "macos"
python = "3.12"
[[matrix.include]]
os = "macos"
python = "3.12"
extra = "x"
)");
  ASSERT_FALSE(e);  // two new cells with the same id
  EXPECT_NE(e.error().message().find("duplicate cell id 'macos-3.12'"), std::string::npos);
  EXPECT_NE(e.error().message().find("new combination from [[matrix.include]]"), std::string::npos);
}

TEST(Include, NewCombinationOfDefinedValueBringsAttributes) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "accel"
values = [{ value = "cpu", type = "cpu" }, { value = "xpu", type = "xpu", version = "2025.1" }]
[[matrix.exclude]]
os = "windows"
accel = "xpu"
[[matrix.include]]
os = "windows"
accel = "xpu"
runner = "win-xpu"
)");
  ASSERT_TRUE(e) << e.error().message();
  // The exclude removed windows-xpu; the include (after exclude) brings it back, attributes too.
  EXPECT_EQ(ids(*e), (Strings{"linux-cpu", "linux-xpu", "windows-cpu", "windows-xpu"}));
  EXPECT_EQ(column(*e, "accel.version").back(), "2025.1");
  EXPECT_EQ(column(*e, "accel.type").back(), "xpu");
}

TEST(Include, NewCombinationLeavesUnnamedAxesEmpty) {
  auto e = expand_text(k_two_axes + R"(
[[matrix.include]]
os = "freebsd"
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(e->cells.back().id(), "freebsd");
  EXPECT_EQ(e->cells.back().value(1), "");
}

TEST(Include, NewCombinationOfValueNotOnThisChannelIsSkipped) {
  const std::string toml = R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux"]
[[matrix.axis]]
name = "python"
values = ["3.13", { value = "3.15", channels = ["nightly"] }]
[[matrix.exclude]]
python = "3.15"
[[matrix.include]]
os = "windows"
python = "3.15"
)";
  EXPECT_EQ(ids(*expand_text(toml, "nightly")), (Strings{"linux-3.13", "windows-3.15"}));
  EXPECT_EQ(ids(*expand_text(toml, "release")), (Strings{"linux-3.13"}));
}

TEST(Include, PatternThatMatchesNoCellOnAChannelDoesNothingThere) {
  const std::string toml = R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "python"
kind = "version"
values = ["3.13", { value = "3.15", channels = ["nightly"] }]
[[matrix.include]]
python = ">=3.15"
packages = "torch"
)";
  auto nightly = expand_text(toml, "nightly");
  ASSERT_TRUE(nightly) << nightly.error().message();
  EXPECT_EQ(column(*nightly, "packages"), (Strings{"", "torch", "", "torch"}));
  auto release = expand_text(toml, "release");
  ASSERT_TRUE(release) << release.error().message();
  EXPECT_EQ(ids(*release), (Strings{"linux-3.13", "windows-3.13"}));
  EXPECT_EQ(column(*release, "packages"), (Strings{"", ""}));
}

TEST(Include, MixedLiteralAndPatternMatchingNothingAddsNoCell) {
  auto e = expand_text(k_two_axes + R"(
[[matrix.include]]
os = "macos"
python = "3.1*"
runner = "x"
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(e->cells.size(), 6u);
  EXPECT_EQ(e->included, 0u);
}

TEST(Include, ChannelsAndChannelKeyRestrictIt) {
  const std::string toml = k_two_axes + R"(
[[matrix.include]]
os = "linux"
channels = ["release"]
upload = "pypi"
[[matrix.include]]
os = "windows"
channel = "nightly"
upload = "nightly-bucket"
)";
  EXPECT_EQ(column(*expand_text(toml, "release"), "upload"), (Strings{"pypi", "pypi", "pypi", "", "", ""}));
  EXPECT_EQ(column(*expand_text(toml, "nightly"), "upload"),
            (Strings{"", "", "", "nightly-bucket", "nightly-bucket", "nightly-bucket"}));
  EXPECT_EQ(column(*expand_text(toml, "test"), "upload"), (Strings(6, "")));
}

TEST(Include, SpecifierMatcherOnVersionAxis) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "python"
kind = "version"
values = ["3.13", "3.14", "3.14t", "3.15"]
[[matrix.include]]
python = ">=3.14"
packages = "torch"
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(column(*e, "packages"), (Strings{"", "torch", "torch", "torch"}));
}

TEST(Fields, TemplatesUseAxesAttributesVarsChannelProjectAndEarlierFields) {
  auto e = expand_text(R"(
[project]
name = "torch"
[matrix]
[matrix.vars]
stable_version = "2.13.0"
[[matrix.axis]]
name = "python"
values = ["3.14t"]
[[matrix.axis]]
name = "accel"
values = [{ value = "cu126", type = "cuda", version = "12.6" }]
[[matrix.field]]
name = "desired_cuda"
template = "{accel}"
[[matrix.field]]
name = "build_name"
template = "manywheel-py{python|underscore}-{accel.type}{accel.version|underscore}"
[[matrix.field]]
name = "copy"
template = "{project}=={stable_version} {desired_cuda|upper} on {channel}"
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(column(*e, "build_name"), (Strings{"manywheel-py3_14t-cuda12_6"}));
  EXPECT_EQ(column(*e, "copy"), (Strings{"torch==2.13.0 CU126 on nightly"}));
}

TEST(Fields, WhenOverrideReplacesValueAndKeepsFirstPosition) {
  const std::string toml = R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "macos-arm64"]
[[matrix.field]]
name = "installation"
template = "pip3 install --pre torch --index-url https://download.pytorch.org/whl/{channel}/cpu"
[[matrix.field]]
name = "after"
template = "x"
[[matrix.field]]
name = "installation"
template = "pip3 install torch"
when = { channel = "release", os = "macos-arm64" }
)";
  auto nightly = expand_text(toml, "nightly");
  ASSERT_TRUE(nightly) << nightly.error().message();
  EXPECT_EQ(*nightly->names, (Strings{"os", "installation", "after", "channel"}));
  EXPECT_EQ(column(*nightly, "installation")[1],
            "pip3 install --pre torch --index-url https://download.pytorch.org/whl/nightly/cpu");
  auto release = expand_text(toml, "release");
  ASSERT_TRUE(release);
  EXPECT_EQ(column(*release, "installation"),
            (Strings{"pip3 install --pre torch --index-url https://download.pytorch.org/whl/release/cpu",
                     "pip3 install torch"}));
}

TEST(Fields, OverrideMayReadTheValueItReplaces) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "python"
kind = "version"
values = ["3.14", "3.15"]
[[matrix.field]]
name = "packages"
template = "torch"
[[matrix.field]]
name = "packages"
template = "{packages} torchvision"
when = { python = "<3.15" }
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(column(*e, "packages"), (Strings{"torch torchvision", "torch"}));
}

TEST(Fields, WhenOnFirstDefinitionLeavesOthersEmpty) {
  auto e = expand_text(k_two_axes + R"(
[[matrix.field]]
name = "note"
template = "win"
when = { os = "windows", python = ">=3.11" }
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(column(*e, "note"), (Strings{"", "", "", "", "win", "win"}));
}

TEST(Fields, WhenMatchesIncludeKeysEarlierFieldsAndOverwrittenAttributes) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "linux-aarch64"]
[[matrix.axis]]
name = "accel"
values = [{ value = "cpu", type = "cpu" }, { value = "cu126", type = "cuda" }]
[[matrix.include]]
os = "linux-aarch64"
"accel.type" = "{accel.type}-aarch64"
tier = "2"
[[matrix.field]]
name = "kind"
template = "{accel.type}"
[[matrix.field]]
name = "runner"
template = "tier{tier}-{kind}"
when = { "accel.type" = "*-aarch64", tier = "2" }
)");
  ASSERT_TRUE(e) << e.error().message();
  // Include values are literal text, not templates.
  EXPECT_EQ(column(*e, "accel.type")[2], "{accel.type}-aarch64");
  EXPECT_EQ(column(*e, "runner"),
            (Strings{"", "", "tier2-{accel.type}-aarch64", "tier2-{accel.type}-aarch64"}));
}

TEST(Ids, CustomIdAndBuildIdTemplates) {
  auto e = expand_text(R"(
[matrix]
id = "{os}-py{python}"
build_id = "cp{python|nodot}-{platform_tag}"
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "python"
values = ["3.12", "3.14t"]
[[matrix.field]]
name = "platform_tag"
template = "manylinux_2_28_x86_64"
[[matrix.field]]
name = "platform_tag"
template = "win_amd64"
when = { os = "windows" }
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(ids(*e), (Strings{"linux-py3.12", "linux-py3.14t", "windows-py3.12", "windows-py3.14t"}));
  EXPECT_EQ(column(*e, "build_id"), (Strings{"cp312-manylinux_2_28_x86_64", "cp314t-manylinux_2_28_x86_64",
                                             "cp312-win_amd64", "cp314t-win_amd64"}));
}

TEST(Ids, BuildIdMayUseTheId) {
  auto e = expand_text(R"(
[matrix]
build_id = "x-{id|upper}"
[[matrix.axis]]
name = "os"
values = ["linux"]
)");
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(e->cells[0].build_id(), "x-LINUX");
}

TEST(Ids, DuplicateIdsNameBothCombinations) {
  const auto message = error_of(R"(
[matrix]
id = "{os}"
[[matrix.axis]]
name = "os"
values = ["linux"]
[[matrix.axis]]
name = "python"
values = ["3.10", "3.11"]
)");
  EXPECT_EQ(message,
            "t.toml:3:6: duplicate cell id 'linux' on channel 'nightly': produced by os=linux python=3.10 "
            "and by os=linux python=3.11; make [matrix] id include what tells them apart");
}

TEST(Expand, NothingLeftIsNothingSelected) {
  auto e = expand_text(k_two_axes + R"(
[[matrix.exclude]]
python = "*"
)");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().category(), ErrorCategory::nothing_selected);
  EXPECT_EQ(e.error().message(),
            "the matrix in t.toml has no cells on channel 'nightly' (6 combinations, 6 excluded)");
}

TEST(Expand, AxisWithNoValueOnAChannelIsNothingSelected) {
  auto e = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "python"
values = [{ value = "3.15", channels = ["nightly"] }]
)",
                       "release");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().category(), ErrorCategory::nothing_selected);
}

TEST(Expand, UnknownChannel) {
  auto e = expand_text(k_two_axes, "nighlty");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().category(), ErrorCategory::invalid_input);
  EXPECT_EQ(e.error().message(),
            "unknown channel 'nighlty'; did you mean 'nightly'? (t.toml defines 'nightly', "
            "'test' and 'release')");
}

}  // namespace
}  // namespace relforge::matrix
