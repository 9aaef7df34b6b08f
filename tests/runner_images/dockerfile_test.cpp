// Build contexts and content-addressed tags: stages, quoting, and which edits change which tags.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "runner_images/dockerfile.hpp"
#include "tests/runner_images/fleet_fixture.hpp"

namespace relforge::runner_images::test {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

class DockerfileTest : public FleetFixture {
protected:
  std::map<std::string, std::string> tags() {
    std::map<std::string, std::string> out;
    auto fleet = load();
    EXPECT_TRUE(fleet) << fleet.error().message();
    if (!fleet) return out;
    for (const auto& image : fleet->images) {
      auto context = build_context(*fleet, image);
      EXPECT_TRUE(context) << context.error().message();
      if (context) out[image.variant] = context->tag;
    }
    return out;
  }
};

TEST_F(DockerfileTest, ACudaImageHasBaseToolkitAndFinalStages) {
  auto fleet = load();
  ASSERT_TRUE(fleet) << fleet.error().message();
  auto context = build_context(*fleet, fleet->images[1]);
  ASSERT_TRUE(context) << context.error().message();
  const auto& text = context->dockerfile;
  EXPECT_THAT(text, HasSubstr("FROM quay.io/pypa/manylinux_2_28_x86_64 AS base\n"));
  EXPECT_THAT(text, HasSubstr("\nFROM base AS toolkit\n"));
  EXPECT_THAT(text, HasSubstr("\nFROM base AS final\n"));
  EXPECT_THAT(text,
              HasSubstr("CUDA_VERSION=12.6.3 \\\n    CUDA_DRIVER=560.35.05 \\\n    CUDNN_VERSION=9.10.2.21"));
  EXPECT_THAT(text, HasSubstr("COPY --from=toolkit /usr/local/cuda-12.6 /usr/local/cuda-12.6\n"));
  EXPECT_THAT(text, HasSubstr("RELFORGE_PYTHONS=\"cp312-cp312 cp314-cp314t\""));
  EXPECT_THAT(text, HasSubstr("PATH=/opt/rh/gcc-toolset-13/root/usr/bin:$PATH"));
  // NCCL was not pinned, so the script does not get an empty NCCL_VERSION.
  EXPECT_THAT(text, ::testing::Not(HasSubstr("NCCL_VERSION")));
  EXPECT_THAT(context->tag, MatchesRegex("cuda12\\.6-[0-9a-f]{12}"));
  EXPECT_EQ(context->reference(), "demo/builder:" + context->tag);
  EXPECT_EQ(context->dir, "demo/builder/cuda12.6");
  ASSERT_EQ(context->files.size(), 2u);
  EXPECT_EQ(context->files[1].first, "scripts/cuda.sh");
  EXPECT_EQ(context->files[1].second, "#!/bin/sh\necho cuda\n");
}

TEST_F(DockerfileTest, ACpuImageHasNoToolkitStage) {
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto context = build_context(*fleet, fleet->images[0]);
  ASSERT_TRUE(context);
  EXPECT_THAT(context->dockerfile, ::testing::Not(HasSubstr("AS toolkit")));
  EXPECT_THAT(context->dockerfile, HasSubstr("\nFROM base AS final\n"));
}

TEST_F(DockerfileTest, TheSameInputGivesTheSameTag) {
  const auto first = tags();
  const auto second = tags();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first, second);
  EXPECT_NE(first.at("cpu").substr(4), first.at("cuda12.6").substr(9));
}

TEST_F(DockerfileTest, ChangingOnePinRetagsOnlyThatImage) {
  const auto before = tags();
  edit("cudnn = \"9.10.2.21\"", "cudnn = \"9.10.2.22\"");
  const auto after = tags();
  EXPECT_EQ(before.at("cpu"), after.at("cpu"));
  EXPECT_NE(before.at("cuda12.6"), after.at("cuda12.6"));
}

TEST_F(DockerfileTest, ChangingACopiedScriptRetagsTheImagesThatCopyIt) {
  const auto before = tags();
  write("images/cuda.sh", "#!/bin/sh\necho cuda 2\n");
  const auto cuda_changed = tags();
  EXPECT_EQ(before.at("cpu"), cuda_changed.at("cpu"));
  EXPECT_NE(before.at("cuda12.6"), cuda_changed.at("cuda12.6"));
  write("images/base.sh", "#!/bin/sh\necho base 2\n");
  const auto base_changed = tags();
  EXPECT_NE(cuda_changed.at("cpu"), base_changed.at("cpu"));
  EXPECT_NE(cuda_changed.at("cuda12.6"), base_changed.at("cuda12.6"));
}

TEST_F(DockerfileTest, ADefaultChangeRetagsEveryImageThatInheritsIt) {
  const auto before = tags();
  edit("gcc_toolset = \"13\"", "gcc_toolset = \"14\"");
  const auto after = tags();
  EXPECT_NE(before.at("cpu"), after.at("cpu"));
  EXPECT_NE(before.at("cuda12.6"), after.at("cuda12.6"));
}

TEST(ContentTag, FileOrderDoesNotMatterButNamesAndBytesDo) {
  const auto a = content_tag("v", "FROM x\n", {{"scripts/a", "1"}, {"scripts/b", "2"}});
  EXPECT_EQ(a, content_tag("v", "FROM x\n", {{"scripts/b", "2"}, {"scripts/a", "1"}}));
  EXPECT_NE(a, content_tag("v", "FROM x\n", {{"scripts/a", "12"}, {"scripts/b", ""}}));
  EXPECT_NE(a, content_tag("v", "FROM x\n", {{"scripts/c", "1"}, {"scripts/b", "2"}}));
  EXPECT_NE(a, content_tag("v", "FROM y\n", {{"scripts/a", "1"}, {"scripts/b", "2"}}));
}

TEST_F(DockerfileTest, ABadPythonIsNamed) {
  edit("pythons = [\"3.12\", \"3.14t\"]", "pythons = [\"3.12\", \"cp314\"]");
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto context = build_context(*fleet, fleet->images[0]);
  ASSERT_FALSE(context);
  EXPECT_THAT(context.error().describe(), HasSubstr("Python 'cp314' is not X.Y or X.Yt"));
}

TEST_F(DockerfileTest, WriteContextWritesTheDockerfileAndExecutableScripts) {
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto context = build_context(*fleet, fleet->images[1]);
  ASSERT_TRUE(context);
  auto written = write_context(*context, m_dir / "out");
  ASSERT_TRUE(written) << written.error().message();
  EXPECT_EQ(written->size(), 3u);
  const auto dir = m_dir / "out/demo/builder/cuda12.6";
  EXPECT_TRUE(fs::exists(dir / "Dockerfile"));
  const auto perms = fs::status(dir / "scripts/cuda.sh").permissions();
  EXPECT_NE(perms & fs::perms::owner_exec, fs::perms::none);
}

}  // namespace
}  // namespace relforge::runner_images::test
