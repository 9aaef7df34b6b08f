#include "cli/release_builds.hpp"

#include <gtest/gtest.h>

namespace relforge::cli {
namespace {

channels::StoredFile stored(const std::string& variant, const std::string& filename, bool yanked = false) {
  channels::StoredFile file;
  file.variant = variant;
  file.info.filename = filename;
  file.info.yanked = yanked;
  file.key = "whl/test/" + variant + "/mini/" + filename;
  return file;
}

TEST(ReleaseBuilds, EachCellIsPublishedSignedPromotedOrNamedAsABlocker) {
  const std::vector<channels::ExpectedFile> expected = {
      {"cpu-py3.12", "mini-2.7.0+cpu-cp312-cp312-linux_x86_64.whl"},
      {"cu126-py3.12", "mini-2.7.0+cu126-cp312-cp312-linux_x86_64.whl"},
      {"cu128-py3.12", "mini-2.7.0+cu128-cp312-cp312-linux_x86_64.whl"},
      {"rocm-py3.12", "mini-2.7.0+rocm-cp312-cp312-linux_x86_64.whl"}};
  const auto cpu = stored("cpu", expected[0].filename);
  const auto cu126 = stored("cu126", expected[1].filename);
  const auto cu128 = stored("cu128", expected[2].filename, true);
  std::set<std::string> keys = {cpu.key,
                                cpu.key + ".provenance",
                                cpu.key + ".sigstore.json",
                                cu126.key,
                                cu126.key + ".provenance",  // no .sigstore.json: not signed
                                cu128.key,
                                cu128.key + ".provenance",
                                cu128.key + ".sigstore.json"};
  auto promoted = stored("cpu", expected[0].filename);
  promoted.key = "whl/cpu/mini/" + expected[0].filename;
  const auto builds = join_release_builds(expected, {cpu, cu126, cu128}, keys, {promoted});
  ASSERT_EQ(builds.cells.size(), 4u);
  EXPECT_TRUE(builds.cells[0].published && builds.cells[0].signed_ && builds.cells[0].promoted);
  EXPECT_TRUE(builds.cells[1].published);
  EXPECT_FALSE(builds.cells[1].signed_);
  EXPECT_FALSE(builds.cells[2].published);  // yanked
  EXPECT_FALSE(builds.cells[3].published || builds.cells[3].signed_ || builds.cells[3].promoted);
  const std::vector<std::string> blockers = {
      "cu126-py3.12: " + expected[1].filename +
          " is not signed (no .provenance and .sigstore.json beside it)",
      "cu126-py3.12: " + expected[1].filename + " is not promoted to stable",
      "cu128-py3.12: " + expected[2].filename + " is yanked in the test channel",
      "cu128-py3.12: " + expected[2].filename + " is not promoted to stable",
      "rocm-py3.12: " + expected[3].filename + " is not published to the test channel",
      "rocm-py3.12: " + expected[3].filename + " is not promoted to stable"};
  EXPECT_EQ(builds.blockers, blockers);
}

TEST(ReleaseBuilds, AllDoneHasNoBlockers) {
  const std::vector<channels::ExpectedFile> expected = {{"cpu", "mini-2.7.0+cpu-py3-none-any.whl"}};
  const auto file = stored("cpu", expected[0].filename);
  const auto builds = join_release_builds(
      expected, {file}, {file.key, file.key + ".provenance", file.key + ".sigstore.json"}, {file});
  EXPECT_TRUE(builds.blockers.empty());
  EXPECT_TRUE(builds.cells.at(0).signed_);
}

}  // namespace
}  // namespace relforge::cli
