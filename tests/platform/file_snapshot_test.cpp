// FileSnapshot: a private copy read once and hashed on the way; later changes to the original do
// not reach it, and it is gone with its last owner.
#include "platform/file_snapshot.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "tests/support/e2e.hpp"

namespace relforge::platform {
namespace {

namespace fs = std::filesystem;

class FileSnapshotTest : public ::testing::Test {
protected:
  fs::path write(const std::string& name, const std::string& bytes) {
    const auto path = m_dir.path / name;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return path;
  }
  test::TempDir m_dir;
};

TEST_F(FileSnapshotTest, TheCopyKeepsTheNameAndTheHashedBytesWhateverHappensToTheOriginal) {
  const std::string bytes(3 << 20, 'w');
  const auto original = write("demo-1.0-py3-none-any.whl", bytes);
  auto snapshot = FileSnapshot::take(original);
  ASSERT_TRUE(snapshot) << snapshot.error().describe();
  const fs::path copy = (*snapshot)->path();
  EXPECT_EQ(copy.filename(), original.filename());
  EXPECT_NE(copy, original);
  EXPECT_EQ((*snapshot)->sha256(), to_hex(sha256(bytes)));
  EXPECT_EQ((*snapshot)->size(), bytes.size());
  write("demo-1.0-py3-none-any.whl", "rewritten in place");
  EXPECT_TRUE(read_file(copy).value() == bytes);
  struct stat info {};
  ASSERT_EQ(::stat(copy.parent_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700U);
  ASSERT_EQ(::stat(copy.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600U);
  snapshot->reset();
  EXPECT_FALSE(fs::exists(copy.parent_path()));
}

TEST_F(FileSnapshotTest, AFifoOrFolderIsRefusedWithoutWaitingAndLeavesNoCopy) {
  const auto fifo = m_dir.path / "fifo-1.0-py3-none-any.whl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto started = std::chrono::steady_clock::now();
  auto from_fifo = FileSnapshot::take(fifo);  // no writer ever opens it
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  ASSERT_FALSE(from_fifo);
  EXPECT_NE(from_fifo.error().message().find("not a regular file"), std::string::npos);
  auto from_folder = FileSnapshot::take(m_dir.path);
  ASSERT_FALSE(from_folder);
  EXPECT_EQ(from_folder.error().category(), ErrorCategory::invalid_input);
  auto missing = FileSnapshot::take(m_dir.path / "missing.whl");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path())) {
    if (entry.path().filename().string().starts_with("relforge-snapshot")) {
      EXPECT_FALSE(fs::exists(entry.path() / "fifo-1.0-py3-none-any.whl")) << entry.path();
    }
  }
}

TEST_F(FileSnapshotTest, ErrorsAboutTheCopyNameTheOriginal) {
  const auto original = write("demo-1.0-py3-none-any.whl", "x");
  auto snapshot = FileSnapshot::take(original);
  ASSERT_TRUE(snapshot);
  const std::string copy = (*snapshot)->path().string();
  Error error(ErrorCategory::integrity, copy + ": RECORD names a missing entry; " + copy + " is refused");
  error.with_context("checking " + copy).with_context("publishing");
  const Error mapped = (*snapshot)->about_original(error);
  EXPECT_EQ(mapped.category(), ErrorCategory::integrity);
  EXPECT_EQ(mapped.describe(), "publishing: checking " + original.string() + ": " + original.string() +
                                   ": RECORD names a missing entry; " + original.string() + " is refused");
}

TEST_F(FileSnapshotTest, CopyFileHashingReturnsTheHashOfWhatItCopied) {
  const auto from = write("from.bin", "hello");
  const auto to = m_dir.path / "to.bin";
  write("to.bin", "a longer file that must be truncated");
  auto hash = copy_file_hashing(from, to);
  ASSERT_TRUE(hash) << hash.error().describe();
  EXPECT_EQ(*hash, to_hex(sha256(std::string("hello"))));
  EXPECT_EQ(read_file(to).value(), "hello");
}

}  // namespace
}  // namespace relforge::platform
