#include "platform/fs.hpp"

#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <thread>
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

// Sets the umask for one test, so that modes come out exactly as requested.
class Umask {
public:
  explicit Umask(mode_t mask) : m_old(::umask(mask)) {}
  ~Umask() { ::umask(m_old); }

private:
  mode_t m_old;
};

mode_t mode_of(const std::filesystem::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 ? (info.st_mode & 07777) : 0;
}

TEST_F(FsTest, AtomicWriteGivesTheModeAskedForEvenUnderUmaskZero) {
  Umask open_umask(0);
  ASSERT_TRUE(write_file_atomic(m_dir / "secret", "s", Durability::no_fsync, 0600));
  EXPECT_EQ(mode_of(m_dir / "secret"), 0600u);
  ASSERT_TRUE(write_file_atomic(m_dir / "plain", "p", Durability::no_fsync));
  EXPECT_EQ(mode_of(m_dir / "plain"), 0644u);
  // Replacing a wider file gives the new file's mode, not the old one's.
  ASSERT_TRUE(write_file_atomic(m_dir / "plain", "q", Durability::no_fsync, 0600));
  EXPECT_EQ(mode_of(m_dir / "plain"), 0600u);
}

// The temp file is watched as it appears (inotify) and its mode read while the write is still
// going on: it is 0600 from its creation, never wider, even with umask 0.
TEST_F(FsTest, AtomicWriteTempFileIsNeverWiderThanTheModeAskedFor) {
  Umask open_umask(0);
  const int watch = ::inotify_init1(IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(::inotify_add_watch(watch, m_dir.c_str(), IN_CREATE), 0);
  const std::string content(64u << 20, 'k');  // long enough to stat the temp file while it is written
  std::vector<mode_t> seen;
  for (int attempt = 0; attempt < 20 && seen.empty(); ++attempt) {
    const auto path = m_dir / ("key" + std::to_string(attempt));
    std::thread writer([&] { EXPECT_TRUE(write_file_atomic(path, content, Durability::no_fsync, 0600)); });
    alignas(inotify_event) char buffer[4096];
    bool created = false;
    while (!created) {
      const ssize_t n = ::read(watch, buffer, sizeof buffer);
      ASSERT_GT(n, 0);
      for (ssize_t at = 0; at < n;) {
        const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
        const std::string name = event->len > 0 ? event->name : "";
        if (name.rfind(path.filename().string() + ".tmp.", 0) == 0) {
          created = true;
          if (const mode_t mode = mode_of(m_dir / name); mode != 0) seen.push_back(mode);
        }
        at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      }
    }
    writer.join();
    EXPECT_EQ(mode_of(path), 0600u);
  }
  ::close(watch);
  ASSERT_FALSE(seen.empty()) << "the temp file was never seen before its rename";
  for (const mode_t mode : seen) EXPECT_EQ(mode, 0600u);
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
  for (const std::size_t size : {4095, 4096, 4097}) {  // around the first read's stack buffer
    const std::string text(size, 's');
    ASSERT_TRUE(write_file_atomic(m_dir / "edge", text));
    EXPECT_EQ(dir->read("edge").value(), text) << size;
  }
  std::filesystem::remove(m_dir / "edge");
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

TEST_F(FsTest, DirectoryWritesAtomicallyThroughItsHandle) {
  auto dir = Directory::open(m_dir);
  ASSERT_TRUE(dir) << dir.error().describe();
  ASSERT_TRUE(dir->write_atomic("page", "one", Durability::no_fsync));
  EXPECT_TRUE(dir->has_content("page", "one"));
  EXPECT_FALSE(dir->has_content("page", "two"));
  EXPECT_FALSE(dir->has_content("absent", ""));
  ASSERT_TRUE(dir->write_atomic("page", "two"));
  EXPECT_EQ(*read_file(m_dir / "page"), "two");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(m_dir), {}), 1);  // no temp left
  ASSERT_TRUE(dir->write_atomic("secret", "s", Durability::no_fsync, 0600));
  EXPECT_EQ(std::filesystem::status(m_dir / "secret").permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::filesystem::create_directory(m_dir / "taken");
  const auto refused = dir->write_atomic("taken", "x");  // a rename over a folder fails, cleanly
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find((m_dir / "taken").string()), std::string::npos);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(m_dir), {}), 3);
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
