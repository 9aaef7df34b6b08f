#include <gtest/gtest.h>

#include <string>

#include "channels/object_store.hpp"
#include "tests/support/e2e.hpp"

namespace relforge::channels {
namespace {

TEST(ScratchFolder, AChosenFolderIsUsedAsGiven) {
  test::ScopedEnv scope("TMPDIR", "/nonexistent-relforge-tmp");
  auto folder = scratch_folder("/some/where");
  ASSERT_TRUE(folder);
  EXPECT_EQ(*folder, "/some/where");
}

TEST(ScratchFolder, NoTempFolderIsAnIoErrorNotAnAbort) {
  test::ScopedEnv scope("TMPDIR", "/nonexistent-relforge-tmp");
  auto folder = scratch_folder({});
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().category(), ErrorCategory::io);
  EXPECT_NE(folder.error().message().find("set TMPDIR to a folder that exists"), std::string::npos)
      << folder.error().message();
}

}  // namespace
}  // namespace relforge::channels
