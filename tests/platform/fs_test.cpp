#include "platform/fs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace relforge::platform {
namespace {

class FsTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("relforge-fs-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::filesystem::path m_dir;
};

TEST_F(FsTest, AtomicWriteReplacesContentAndLeavesNoTemp) {
  const auto path = m_dir / "out.txt";
  ASSERT_TRUE(write_file_atomic(path, "first"));
  ASSERT_TRUE(write_file_atomic(path, "second"));
  EXPECT_EQ(*read_file(path), "second");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(m_dir)) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST_F(FsTest, AtomicWriteIntoMissingDirectoryFailsCleanly) {
  auto status = write_file_atomic(m_dir / "missing" / "out.txt", "x");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().category(), ErrorCategory::io);
  EXPECT_NE(status.error().message().find("missing"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(m_dir / "missing"));
}

TEST_F(FsTest, ReadMissingFileIsNotFound) {
  auto content = read_file(m_dir / "nope");
  ASSERT_FALSE(content);
  EXPECT_EQ(content.error().category(), ErrorCategory::not_found);
}

TEST_F(FsTest, AppendCreatesThenAppends) {
  const auto path = m_dir / "log";
  ASSERT_TRUE(append_file(path, "a\n"));
  ASSERT_TRUE(append_file(path, "b\n"));
  EXPECT_EQ(*read_file(path), "a\nb\n");
}

TEST_F(FsTest, DirectoryListsAndReadsFilesOfAnySize) {
  const std::string big(3 * 8192 + 17, 'x');  // crosses the reader's buffer growth several times
  const std::string exact(8192, 'y');
  ASSERT_TRUE(write_file_atomic(m_dir / "big", big));
  ASSERT_TRUE(write_file_atomic(m_dir / "exact", exact));
  ASSERT_TRUE(write_file_atomic(m_dir / "empty", ""));
  std::filesystem::create_directory(m_dir / "sub");
  auto dir = Directory::open(m_dir);
  ASSERT_TRUE(dir) << dir.error().describe();
  auto names = dir->names().value();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"big", "empty", "exact", "sub"}));
  EXPECT_EQ(dir->names().value().size(), 4u);  // listing twice starts from the beginning again
  EXPECT_EQ(dir->read("big").value(), big);
  EXPECT_EQ(dir->read("exact").value(), exact);
  EXPECT_EQ(dir->read("empty").value(), "");
  const auto missing = dir->read("nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
  EXPECT_NE(missing.error().message().find((m_dir / "nope").string()), std::string::npos);
  EXPECT_EQ(dir->read("sub").error().category(), ErrorCategory::io);  // a directory is not a file
  const auto absent = Directory::open(m_dir / "absent");
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error().category(), ErrorCategory::not_found);
  EXPECT_EQ(Directory::open(m_dir / "big").error().category(), ErrorCategory::io);
  Directory moved = std::move(*dir);
  EXPECT_EQ(moved.read("exact").value(), exact);
}

TEST_F(FsTest, FileHasContentComparesEveryByte) {
  const std::string big(200000, 'z');
  ASSERT_TRUE(write_file_atomic(m_dir / "big", big));
  EXPECT_TRUE(file_has_content(m_dir / "big", big));
  std::string changed = big;
  changed[150000] = 'y';  // same size, differs past the first read
  EXPECT_FALSE(file_has_content(m_dir / "big", changed));
  EXPECT_FALSE(file_has_content(m_dir / "big", big + "z"));
  EXPECT_FALSE(file_has_content(m_dir / "missing", ""));
  ASSERT_TRUE(write_file_atomic(m_dir / "empty", ""));
  EXPECT_TRUE(file_has_content(m_dir / "empty", ""));
}

TEST_F(FsTest, FsyncPathReportsAMissingFile) {
  ASSERT_TRUE(write_file_atomic(m_dir / "f", "data"));
  EXPECT_FALSE(fsync_path(m_dir / "f"));
  EXPECT_EQ(fsync_path(m_dir / "missing"), std::errc::no_such_file_or_directory);
}

}  // namespace
}  // namespace relforge::platform
