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

TEST(Diff, TextRendering) {
  EXPECT_EQ(render_diff_text(sample_diff()),
            "+ linux-cu132\n"
            "- linux-cu126\n"
            "- windows-cu126\n"
            "~ linux-cpu\n"
            "    gone: 'x' -> (absent)\n"
            "~ linux-cu130\n"
            "    runner: 'linux.2xlarge' -> 'linux.g5.4xlarge.nvidia.gpu'\n"
            "    gone: 'x' -> (absent)\n"
            "~ windows-cpu\n"
            "    gone: 'x' -> (absent)\n"
            "~ windows-cu130\n"
            "    gone: 'x' -> (absent)\n"
            "1 added, 2 removed, 4 changed\n");
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
