// PrivateDir: a new 0700 folder under a name nobody could plant beforehand, gone with its owner
// unless kept.
#include "platform/private_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "tests/support/e2e.hpp"

namespace relforge::platform {
namespace {

namespace fs = std::filesystem;

TEST(PrivateDir, EachIsNewOnlyTheUsersAndGoneWithItsContents) {
  test::TempDir parent;
  auto first = PrivateDir::create("relforge-x-", "for a test", parent.path);
  auto second = PrivateDir::create("relforge-x-", "for a test", parent.path);
  ASSERT_TRUE(first) << first.error().describe();
  ASSERT_TRUE(second) << second.error().describe();
  EXPECT_NE(first->path(), second->path());
  EXPECT_EQ(first->path().parent_path(), parent.path);
  EXPECT_EQ(first->path().filename().string().rfind("relforge-x-", 0), 0U);
  struct stat info {};
  ASSERT_EQ(::stat(first->path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700U);
  const fs::path folder = first->path();
  fs::create_directories(folder / "a" / "b");
  std::ofstream(folder / "a" / "b" / "file") << "x";
  { const PrivateDir gone = std::move(*first); }
  EXPECT_FALSE(fs::exists(folder));
  EXPECT_TRUE(fs::exists(second->path()));
}

TEST(PrivateDir, AKeptFolderStaysAndAMovedOneIsRemovedOnce) {
  test::TempDir parent;
  fs::path kept;
  {
    auto dir = PrivateDir::create("keep-", "for a test", parent.path);
    ASSERT_TRUE(dir);
    dir->keep();
    kept = dir->path();
  }
  EXPECT_TRUE(fs::is_directory(kept));

  auto a = PrivateDir::create("a-", "for a test", parent.path);
  auto b = PrivateDir::create("b-", "for a test", parent.path);
  ASSERT_TRUE(a && b);
  const fs::path a_path = a->path();
  const fs::path b_path = b->path();
  *a = std::move(*b);  // a's own folder goes; b's is a's now
  EXPECT_FALSE(fs::exists(a_path));
  EXPECT_TRUE(fs::exists(b_path));
  std::optional<PrivateDir> holder(std::move(*a));
  holder.reset();
  EXPECT_FALSE(fs::exists(b_path));
}

TEST(PrivateDir, AMissingParentIsAnIoErrorNamingItAndThePurpose) {
  test::TempDir parent;
  auto dir = PrivateDir::create("x-", "for the download of demo.whl", parent.path / "absent");
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().category(), ErrorCategory::io);
  const std::string message = dir.error().message();
  EXPECT_NE(message.find((parent.path / "absent").string()), std::string::npos) << message;
  EXPECT_NE(message.find("for the download of demo.whl"), std::string::npos) << message;
  EXPECT_NE(message.find("No such file or directory"), std::string::npos) << message;
}

TEST(PrivateDir, TheDefaultParentIsTmpdir) {
  test::TempDir parent;
  test::ScopedEnv tmpdir("TMPDIR", parent.path.string());
  auto dir = PrivateDir::create("relforge-y-", "for a test");
  ASSERT_TRUE(dir) << dir.error().describe();
  EXPECT_EQ(dir->path().parent_path(), parent.path);
}

}  // namespace
}  // namespace relforge::platform
