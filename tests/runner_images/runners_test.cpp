// Cells → images and runner classes: the checks of `runners check`, the matrix hook, and the
// scale-config / ARC renderings' content.
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runner_images/assign.hpp"
#include "runner_images/runners.hpp"
#include "tests/runner_images/fleet_fixture.hpp"

namespace relforge::runner_images::test {
namespace {

using ::testing::HasSubstr;

std::string messages(const RunnersReport& report) {
  std::string out;
  for (const auto& finding : report.findings)
    out += (finding.severity == Severity::error ? "E: " : "W: ") + finding.message + "\n";
  return out;
}

TEST_F(FleetFixture, AConsistentFleetHasNoFindings) {
  auto fleet = load();
  ASSERT_TRUE(fleet) << fleet.error().message();
  auto report = check_runners(*fleet, expand());
  ASSERT_TRUE(report) << report.error().message();
  EXPECT_EQ(report->cells, 4u);
  EXPECT_TRUE(report->findings.empty()) << messages(*report);
  ASSERT_EQ(report->uses.size(), 2u);
  EXPECT_EQ(report->uses[1].label, "linux.gpu");
  EXPECT_EQ(report->uses[1].cells, 2u);
  EXPECT_EQ(report->uses[1].gpu_cells, 2u);
}

TEST_F(FleetFixture, AGpuCellOnACpuOnlyClassIsAnError) {
  edit("gpu = { type = \"a10g\", vendor = \"nvidia\", count = 1 }\n", "");
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto report = check_runners(*fleet, expand());
  ASSERT_TRUE(report);
  EXPECT_EQ(report->errors(), 1u) << messages(*report);
  EXPECT_THAT(messages(*report),
              HasSubstr("2 GPU cells (e.g. 3.12-cu126 on nightly) run on 'linux.gpu', a class "
                        "without GPUs"));
}

TEST_F(FleetFixture, ALabelOverFortyFiveCharactersIsAnError) {
  const std::string label = "linux.g5.4xlarge.nvidia.gpu.ephemeral.canary.x";  // 46 characters
  ASSERT_EQ(label.size(), 46u);
  edit("label = \"linux.gpu\"", "label = \"" + label + "\"");
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto report = check_runners(*fleet, expand());
  ASSERT_TRUE(report);
  const auto text = messages(*report);
  EXPECT_THAT(text, HasSubstr("the label is 46 characters: Actions Runner Controller scale-set names"));
  // ... and the cells that asked for linux.gpu now name a class that does not exist.
  EXPECT_THAT(text,
              HasSubstr("2 cells (e.g. 3.12-cu126 on nightly) run on 'linux.gpu', which is no runner class"));
  EXPECT_THAT(text, HasSubstr("W: runner class '" + label + "' is used by no cell"));
  std::vector<std::string> skipped;
  auto arc = render_arc(*fleet, skipped);
  ASSERT_FALSE(arc);
  EXPECT_EQ(arc.error().category(), ErrorCategory::invalid_input);
}

TEST(LabelProblem, FollowsArcAndKubernetesRules) {
  EXPECT_FALSE(label_problem("linux.g5.4xlarge.nvidia.gpu"));
  EXPECT_FALSE(label_problem("mt-l-x86iavx512-29-115-t4"));
  EXPECT_FALSE(label_problem(std::string(45, 'a')));
  EXPECT_THAT(*label_problem(std::string(46, 'a')), HasSubstr("limited to 45"));
  EXPECT_THAT(*label_problem(std::string(64, 'a')), HasSubstr("limited to 63"));
  EXPECT_THAT(*label_problem("linux gpu"), HasSubstr("contains ' '"));
  EXPECT_THAT(*label_problem("linux/gpu"), HasSubstr("contains '/'"));
  EXPECT_THAT(*label_problem("-linux"), HasSubstr("start and end"));
  EXPECT_THAT(*label_problem("linux."), HasSubstr("start and end"));
  EXPECT_TRUE(label_problem(""));
}

TEST_F(FleetFixture, ACellWithoutAnImageDefinitionIsNamed) {
  edit("accelerators = [\"cu126\"]", "accelerators = [\"cpu\"]\nwhen = { python = \"3.99\" }");
  auto fleet = load();
  ASSERT_TRUE(fleet) << fleet.error().message();
  auto planned = needed_images(*fleet, expand());
  ASSERT_FALSE(planned);
  EXPECT_EQ(planned.error().category(), ErrorCategory::invalid_input);
  EXPECT_THAT(planned.error().message(), HasSubstr("2 cells have no image definition (accel 'cu126')"));
  EXPECT_THAT(planned.error().message(),
              HasSubstr("cell '3.12-cu126' (accel 'cu126') has no image definition"));
}

TEST_F(FleetFixture, TwoImagesForOneCellAreAnError) {
  edit("accelerators = [\"cpu\"]", "accelerators = [\"cpu\", \"cu126\"]");
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto planned = needed_images(*fleet, expand());
  ASSERT_FALSE(planned);
  EXPECT_THAT(planned.error().message(),
              HasSubstr("matches two images, 'demo/builder:cpu' and 'demo/builder:cuda12.6'"));
}

TEST_F(FleetFixture, ImageCellsAndWhenNarrowWhichCellsNeedImages) {
  edit("runs_on = \"runner\"", "runs_on = \"runner\"\nimage_cells = { accel = \"cu*\" }");
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto planned = needed_images(*fleet, expand());
  ASSERT_TRUE(planned) << planned.error().message();
  ASSERT_EQ(planned->size(), 1u);
  EXPECT_EQ(planned->front().image->variant, "cuda12.6");
  EXPECT_EQ(planned->front().cells, 2u);
}

TEST_F(FleetFixture, AConditionOnAnUnknownFieldIsNamed) {
  edit("runs_on = \"runner\"", "runs_on = \"runner\"\ngpu_cells = { gpu_arch = \"cuda\" }");
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto report = check_runners(*fleet, expand());
  ASSERT_FALSE(report);
  EXPECT_THAT(report.error().message(),
              HasSubstr("[fleet] gpu_cells tests 'gpu_arch', which is not a field"));
}

TEST_F(FleetFixture, TheMatrixHookPutsTheContentTagInContainerImage) {
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto expansions = expand();
  auto& expansion = expansions.front();
  ASSERT_TRUE(set_container_images(*fleet, expansion));
  auto planned = needed_images(*fleet, {expansion});
  ASSERT_TRUE(planned);
  for (const auto& cell : expansion.cells) {
    const auto image = cell.find("container_image");
    ASSERT_TRUE(image);
    const std::string prefix = cell.find("accel") == "cpu" ? "demo/builder:cpu-" : "demo/builder:cuda12.6-";
    EXPECT_EQ(image->substr(0, prefix.size()), prefix) << *image;
    EXPECT_EQ(image->size(), prefix.size() + 12);
    EXPECT_EQ(cell.find("runner"), cell.find("accel") == "cpu" ? "linux.cpu" : "linux.gpu");  // untouched
  }
}

// Rebuilding a cell with its image keeps the types of its other values (a boolean stays a boolean).
TEST_F(FleetFixture, TheMatrixHookKeepsValueTypes) {
  m_fleet += "\n[[matrix.axis]]\nname = \"upload\"\nvalues = [false]\n";
  auto fleet = load();
  ASSERT_TRUE(fleet) << fleet.error().message();
  auto expansions = expand();
  auto& expansion = expansions.front();
  ASSERT_TRUE(set_container_images(*fleet, expansion));
  const auto& names = *expansion.names;
  const auto upload =
      static_cast<std::size_t>(std::find(names.begin(), names.end(), "upload") - names.begin());
  const auto image =
      static_cast<std::size_t>(std::find(names.begin(), names.end(), "container_image") - names.begin());
  ASSERT_LT(upload, names.size());
  ASSERT_LT(image, names.size());
  for (const auto& cell : expansion.cells) {
    EXPECT_EQ(cell.type(upload), matrix::ValueType::boolean);
    EXPECT_EQ(cell.value(upload), "false");
    EXPECT_EQ(cell.type(image), matrix::ValueType::string);
  }
}

TEST_F(FleetFixture, TheMatrixHookLeavesCellsAloneInMatrixMode) {
  edit("runs_on = \"runner\"", "runs_on = \"runner\"\ncontainer_image = \"matrix\"");
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto expansions = expand();
  ASSERT_TRUE(set_container_images(*fleet, expansions.front()));
  EXPECT_EQ(expansions.front().cells[1].find("container_image"), "demo/builder:cu126");
}

TEST_F(FleetFixture, ScaleConfigAndArcCarryTheClassFields) {
  auto fleet = load();
  ASSERT_TRUE(fleet);
  const auto scale = render_scale_config(*fleet);
  EXPECT_THAT(scale, HasSubstr("runner_types:\n  \"linux.cpu\":\n"));
  EXPECT_THAT(scale, HasSubstr("    max_available: 4\n"));
  std::vector<std::string> skipped;
  auto arc = render_arc(*fleet, skipped);
  ASSERT_TRUE(arc) << arc.error().message();
  ASSERT_EQ(arc->size(), 2u);
  EXPECT_EQ((*arc)[1].file, "linux.gpu.yaml");
  EXPECT_THAT((*arc)[1].yaml, HasSubstr("runnerScaleSetName: \"linux.gpu\"\n"));
  EXPECT_THAT((*arc)[1].yaml, HasSubstr("            nvidia.com/gpu: 1\n"));
  EXPECT_THAT((*arc)[0].yaml, ::testing::Not(HasSubstr("nvidia.com/gpu")));
  EXPECT_TRUE(skipped.empty());
}

// A label with a character YAML 1.1 reads as a line break (PyYAML, which reads scale-config.yml in
// the autoscaler's tooling) is escaped, so the key reads back as the label and nothing else.
TEST_F(FleetFixture, ScaleConfigEscapesCharactersYaml11ReadsAsLineBreaks) {
  edit("label = \"linux.gpu\"", "label = \"linux.gpu\u2028x\"");
  auto fleet = load();
  ASSERT_TRUE(fleet) << fleet.error().message();
  const auto scale = render_scale_config(*fleet);
  EXPECT_THAT(scale, HasSubstr("  \"linux.gpu\\u2028x\":\n"));
  EXPECT_THAT(scale, ::testing::Not(HasSubstr("\xe2\x80\xa8")));
}

}  // namespace
}  // namespace relforge::runner_images::test
