// load_fleet: defaults inherited key by key, includes, and every bad input with its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runner_images/fleet.hpp"
#include "tests/runner_images/fleet_fixture.hpp"
#include "tests/support/paths.hpp"

namespace relforge::runner_images::test {
namespace {

using ::testing::HasSubstr;

TEST_F(FleetFixture, ImagesInheritDefaultsAndKeepTheirOwnKeys) {
  auto fleet = load();
  ASSERT_TRUE(fleet) << fleet.error().message();
  ASSERT_EQ(fleet->images.size(), 2u);
  const auto& cuda = fleet->images[1];
  EXPECT_EQ(cuda.display(), "demo/builder:cuda12.6");
  EXPECT_EQ(cuda.base, "quay.io/pypa/manylinux_2_28_x86_64");
  EXPECT_EQ(cuda.gcc_toolset, "13");
  EXPECT_EQ(cuda.toolkit_type(), "cuda");
  ASSERT_TRUE(cuda.cuda);
  EXPECT_EQ(cuda.cuda->driver, "560.35.05");
  EXPECT_EQ(fleet->images[0].toolkit_type(), "cpu");
  EXPECT_EQ(cuda.copied_files(), (std::vector<std::string>{"images/base.sh", "images/cuda.sh"}));
  ASSERT_EQ(fleet->runner_classes.size(), 2u);
  EXPECT_TRUE(fleet->runner_classes[1].has_gpu());
  EXPECT_FALSE(fleet->runner_classes[0].has_gpu());
  EXPECT_EQ(fleet->runs_on, "runner");
  EXPECT_EQ(fleet->cell_image, CellImage::content_tag);
}

TEST_F(FleetFixture, AnIncludedFileHoldsTheFleet) {
  std::string body = m_fleet;
  body = core::replace_all(body, "[fleet]\n", "");
  body = core::replace_all(body, "[fleet.", "[");
  body = core::replace_all(body, "[[fleet.", "[[");
  write("fleet.toml", body);
  m_fleet = "\n[fleet]\ninclude = \"fleet.toml\"\n";
  auto fleet = load();
  ASSERT_TRUE(fleet) << fleet.error().message();
  EXPECT_EQ(fleet->images.size(), 2u);
  EXPECT_EQ(fleet->runner_classes.size(), 2u);
  EXPECT_EQ(fs::path(fleet->file).filename(), "fleet.toml");
}

TEST_F(FleetFixture, IncludeBesideOtherKeysIsRejected) {
  write("fleet.toml", "");
  edit("[fleet]\n", "[fleet]\ninclude = \"fleet.toml\"\n");
  auto fleet = load();
  ASSERT_FALSE(fleet);
  EXPECT_THAT(fleet.error().message(), HasSubstr("has 'include' and other keys"));
}

TEST_F(FleetFixture, AMissingCopiedFileNamesTheImageAndThePath) {
  edit("script = \"images/cuda.sh\"", "script = \"images/install_cuda.sh\"");
  auto fleet = load();
  ASSERT_FALSE(fleet);
  EXPECT_EQ(fleet.error().category(), ErrorCategory::invalid_input);
  EXPECT_THAT(fleet.error().message(),
              HasSubstr("image 'demo/builder:cuda12.6' copies 'images/install_cuda.sh', "
                        "which does not exist"));
}

TEST_F(FleetFixture, AnUnknownAcceleratorValueGetsASuggestion) {
  edit("accelerators = [\"cu126\"]", "accelerators = [\"cu128\"]");
  auto fleet = load();
  ASSERT_FALSE(fleet);
  EXPECT_THAT(fleet.error().message(),
              HasSubstr("serves accelerator 'cu128', which axis 'accel' does not have"));
  EXPECT_THAT(fleet.error().message(), HasSubstr("did you mean 'cu126'?"));
}

TEST_F(FleetFixture, UnknownKeysAndBadValuesAreNamedWithTheirLine) {
  edit("gcc_toolset = \"13\"", "gcc_tolset = \"13\"");
  auto fleet = load();
  ASSERT_FALSE(fleet);
  EXPECT_THAT(fleet.error().message(), HasSubstr("gcc_tolset"));
  EXPECT_THAT(fleet.error().message(), HasSubstr("relforge.toml:"));
}

TEST_F(FleetFixture, ClassesNeedSaneCapacityAndAKnownGpuVendor) {
  edit("vendor = \"nvidia\"", "vendor = \"nvida\"");
  auto fleet = load();
  ASSERT_FALSE(fleet);
  EXPECT_THAT(fleet.error().message(), HasSubstr("did you mean 'nvidia'?"));
}

TEST_F(FleetFixture, MaxBelowMinIsRejected) {
  edit("max = 4", "min = 5\nmax = 4");
  auto fleet = load();
  ASSERT_FALSE(fleet);
  EXPECT_THAT(fleet.error().message(), HasSubstr("has max 4 below min 5"));
}

TEST_F(FleetFixture, TwoToolkitsInOneImageAreRejected) {
  edit("script = \"images/cuda.sh\" }",
       "script = \"images/cuda.sh\" }\nrocm = { version = \"7.2\", gfx = [\"gfx942\"], script = "
       "\"images/cuda.sh\" }");
  auto fleet = load();
  ASSERT_FALSE(fleet);
  EXPECT_THAT(fleet.error().message(), HasSubstr("one toolkit per image"));
}

TEST_F(FleetFixture, DuplicateImagesAndClassesAreRejected) {
  edit("variant = \"cuda12.6\"", "variant = \"cpu\"");
  auto fleet = load();
  ASSERT_FALSE(fleet);
  EXPECT_THAT(fleet.error().message(), HasSubstr("image 'demo/builder:cpu' is defined twice"));
}

TEST_F(FleetFixture, AConfigWithoutFleetHasNone) {
  m_fleet = "";
  auto spec = matrix::load_spec(config());
  ASSERT_TRUE(spec);
  auto fleet = load_fleet(m_dir / "relforge.toml", *spec);
  ASSERT_TRUE(fleet);
  EXPECT_FALSE(*fleet);
}

TEST(FleetExamples, BothExamplesLoad) {
  for (const std::string example : {"pytorch", "minitensor"}) {
    const auto config = fs::path(relforge::test::source_dir()) / "examples" / example / "relforge.toml";
    auto spec = matrix::load_spec(config);
    ASSERT_TRUE(spec) << spec.error().message();
    auto fleet = load_fleet(config, *spec);
    ASSERT_TRUE(fleet) << fleet.error().message();
    ASSERT_TRUE(*fleet);
    EXPECT_FALSE((*fleet)->images.empty()) << example;
    EXPECT_FALSE((*fleet)->runner_classes.empty()) << example;
    // pytorch keeps upstream's image names (its golden test compares them); minitensor's cells
    // carry the content-addressed tags.
    EXPECT_EQ((*fleet)->cell_image, example == "pytorch" ? CellImage::matrix : CellImage::content_tag)
        << example;
  }
}

TEST_F(FleetFixture, ADeepIncludedFileIsRefusedBeforeParsing) {
  write(
      "fleet.toml", std::string(1, '[') + [] {
        std::string a;
        for (int i = 0; i < 40000; ++i) a += "a.";
        return a;
      }() + "a]\n");
  m_fleet = "\n[fleet]\ninclude = \"fleet.toml\"\n";
  auto fleet = load();
  ASSERT_FALSE(fleet);
  EXPECT_EQ(fleet.error().category(), ErrorCategory::invalid_input);
  EXPECT_THAT(fleet.error().message(), HasSubstr("fleet.toml:1:1: TOML nested deeper than 64 levels"));
}

}  // namespace
}  // namespace relforge::runner_images::test
