#include "matrix/diff.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/matrix/support.hpp"

namespace relforge::matrix {
namespace {

using test::expand_text;

const std::string k_old = R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "accel"
values = ["cpu", "cu126", "cu130"]
[[matrix.field]]
name = "runner"
template = "{os}.2xlarge"
[[matrix.field]]
name = "gone"
template = "x"
)";

const std::string k_new = R"(
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "accel"
values = ["cpu", "cu130", "cu132"]
[[matrix.exclude]]
os = "windows"
accel = "cu132"
[[matrix.field]]
name = "runner"
template = "{os}.2xlarge"
[[matrix.field]]
name = "runner"
template = "linux.g5.4xlarge.nvidia.gpu"
when = { os = "linux", accel = "cu*" }
)";

MatrixDiff sample_diff() {
  auto before = expand_text(k_old);
  auto after = expand_text(k_new);
  EXPECT_TRUE(before && after);
  return diff(*before, *after);
}

TEST(Diff, AddedRemovedChangedById) {
  const auto d = sample_diff();
  ASSERT_EQ(d.added.size(), 1u);
  EXPECT_EQ(d.added[0].id(), "linux-cu132");
  ASSERT_EQ(d.removed.size(), 2u);
  EXPECT_EQ(d.removed[0].id(), "linux-cu126");
  EXPECT_EQ(d.removed[1].id(), "windows-cu126");
  // Every common cell lost `gone`; the linux CUDA cell also changed runner.
  ASSERT_EQ(d.changed.size(), 4u);
  EXPECT_EQ(d.changed[1].id, "linux-cu130");
  ASSERT_EQ(d.changed[1].fields.size(), 2u);
  EXPECT_EQ(d.changed[1].fields[0].field, "runner");
  EXPECT_EQ(*d.changed[1].fields[0].before, "linux.2xlarge");
  EXPECT_EQ(*d.changed[1].fields[0].after, "linux.g5.4xlarge.nvidia.gpu");
  EXPECT_EQ(d.changed[1].fields[1].field, "gone");
  EXPECT_FALSE(d.changed[1].fields[1].after.has_value());
}

TEST(Diff, IdenticalExpansionsAreEmpty) {
  auto a = expand_text(k_old);
  auto b = expand_text(k_old);
  ASSERT_TRUE(a && b);
  const auto d = diff(*a, *b);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(render_diff_text(d), "0 added, 0 removed, 0 changed\n");
}

TEST(Diff, BuildIdChangesAreReported) {
  auto a = expand_text("[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [\"linux\"]\n");
  auto b =
      expand_text("[matrix]\nbuild_id = \"x-{os}\"\n[[matrix.axis]]\nname = \"os\"\nvalues = [\"linux\"]\n");
  ASSERT_TRUE(a && b);
  const auto d = diff(*a, *b);
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].fields[0].field, "build_id");
}

TEST(Diff, TextIsASummary) {
  EXPECT_EQ(render_diff_text(sample_diff()),
            "+ 1 cell added, by axis value:\n"
            "    os: linux (1)\n"
            "    accel: cu132 (1)\n"
            "- 2 cells removed, by axis value:\n"
            "    os: every value (1 each)\n"
            "    accel: cu126 (2)\n"
            "~ gone: 'x' -> (absent) on all 4 cells in both\n"
            "~ runner: 'linux.2xlarge' -> 'linux.g5.4xlarge.nvidia.gpu' on 1 cell: linux-cu130\n"
            "1 added, 2 removed, 4 changed\n");
}

// 63 cells with the same change: one line, not 63.
TEST(Diff, OneLinePerDistinctChange) {
  const std::string axes = R"(
[[matrix.axis]]
name = "a"
values = ["1", "2", "3", "4", "5", "6", "7"]
[[matrix.axis]]
name = "b"
values = ["1", "2", "3", "4", "5", "6", "7", "8", "9"]
)";
  auto before = expand_text("[matrix.vars]\nv = \"2.13.0\"\n[matrix]\n" + axes +
                            "[[matrix.field]]\nname = \"stable\"\ntemplate = \"{v}\"\n");
  auto after = expand_text("[matrix.vars]\nv = \"2.14.0\"\n[matrix]\n" + axes +
                           "[[matrix.field]]\nname = \"stable\"\ntemplate = \"{v}\"\n"
                           "[[matrix.field]]\nname = \"extra\"\ntemplate = \"x\"\nwhen = { a = \"1\" }\n");
  ASSERT_TRUE(before && after) << (before ? after.error().message() : before.error().message());
  const auto d = diff(*before, *after);
  EXPECT_EQ(d.changed.size(), 63u);
  ASSERT_EQ(d.summary.size(), 3u);
  EXPECT_EQ(d.summary[0].change.field, "stable");
  EXPECT_EQ(d.summary[0].cells.size(), 63u);
  // `extra` exists on every new cell: 'x' on a=1, empty elsewhere (a field without a value is empty).
  EXPECT_EQ(d.summary[1].cells.size(), 9u);
  EXPECT_EQ(d.summary[2].cells.size(), 54u);
  const auto text = render_diff_text(d);
  EXPECT_EQ(
      text,
      "~ stable: '2.13.0' -> '2.14.0' on all 63 cells in both\n"
      "~ extra: (absent) -> 'x' on 9 cells: 1-1, 1-2, 1-3, 1-4, 1-5, 1-6, ... (3 more; --json lists them)\n"
      "~ extra: (absent) -> '' on 54 cells: 2-1, 2-2, 2-3, 2-4, 2-5, 2-6, ... (48 more; --json lists them)\n"
      "0 added, 0 removed, 63 changed\n");
  const auto parsed = nlohmann::json::parse(render_diff_json(d));
  EXPECT_EQ(parsed["summary"]["changes"].size(), 3u);
  EXPECT_EQ(parsed["summary"]["changes"][0]["cells"].size(), 63u);
  EXPECT_EQ(parsed["summary"]["common"], 63);
  EXPECT_EQ(parsed["different"], true);
}

TEST(Diff, FieldsRestrictTheComparison) {
  auto before = expand_text(k_old);
  auto after = expand_text(k_new);
  ASSERT_TRUE(before && after);
  const auto d = diff(*before, *after, DiffOptions{{"runner"}});
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].id, "linux-cu130");
  EXPECT_EQ(d.added.size(), 1u);                                    // cells still come and go
  EXPECT_TRUE(check_diff_fields(*before, *after, {"gone", "id"}));  // a field of either side
  const auto bad = check_diff_fields(*before, *after, {"runer"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message().substr(0, 64),
            "unknown field 'runer' in --fields; did you mean 'runner'? (field");
}

TEST(Diff, ATypeChangeIsAChange) {
  auto before = expand_text(
      "[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [{ value = \"linux\", up = \"false\" }]\n");
  auto after =
      expand_text("[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [{ value = \"linux\", up = false }]\n");
  ASSERT_TRUE(before && after);
  const auto d = diff(*before, *after);
  ASSERT_EQ(d.summary.size(), 1u);
  EXPECT_EQ(render_diff_text(d),
            "~ os.up: 'false' -> false on 1 cell: linux\n0 added, 0 removed, 1 changed\n");
  const auto parsed = nlohmann::json::parse(render_diff_json(d));
  EXPECT_EQ(parsed["changed"][0]["fields"][0]["before"], "false");
  EXPECT_EQ(parsed["changed"][0]["fields"][0]["after"], false);
}

TEST(Diff, JsonRendering) {
  const auto parsed = nlohmann::json::parse(render_diff_json(sample_diff()));
  EXPECT_EQ(parsed["added"][0]["id"], "linux-cu132");
  EXPECT_EQ(parsed["added"][0]["runner"], "linux.g5.4xlarge.nvidia.gpu");
  EXPECT_EQ(parsed["removed"].size(), 2u);
  EXPECT_EQ(parsed["changed"][1]["fields"][0],
            (nlohmann::json{
                {"field", "runner"}, {"before", "linux.2xlarge"}, {"after", "linux.g5.4xlarge.nvidia.gpu"}}));
  EXPECT_TRUE(parsed["changed"][1]["fields"][1]["after"].is_null());
}

}  // namespace
}  // namespace relforge::matrix
