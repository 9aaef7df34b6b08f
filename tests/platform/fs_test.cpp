#include "platform/fs.hpp"

#include <gtest/gtest.h>

#include <filesystem>

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

}  // namespace
}  // namespace relforge::platform
