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

// A file that can be re-created (no_fsync) replaces the old one by exchanging the two names; what
// is left must be what a rename leaves: the new file alone, under its name.
TEST_F(FsTest, AnUnsyncedReplaceLeavesOnlyTheNewFile) {
  const auto path = m_dir / "index.html";
  ASSERT_TRUE(write_file_atomic(path, "first", Durability::no_fsync));
  for (int n = 0; n < 3; ++n)
    ASSERT_TRUE(write_file_atomic(path, "next " + std::to_string(n), Durability::no_fsync));
  EXPECT_EQ(*read_file(path), "next 2");
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(m_dir))
    names.push_back(entry.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"index.html"});
}

// A folder where the file should go is refused, as rename refuses it, and is left as it was: the
// exchange must not leave the folder under a temp name or the new file in its place.
TEST_F(FsTest, AFolderInTheWayOfAnUnsyncedReplaceIsRefusedAndLeftAsItWas) {
  const auto path = m_dir / "index.html";
  std::filesystem::create_directories(path / "inner");
  for (const auto durability : {Durability::no_fsync, Durability::fsync}) {
    auto status = write_file_atomic(path, "page", durability);
    ASSERT_FALSE(status);
    EXPECT_NE(status.error().message().find("cannot rename"), std::string::npos) << status.error().message();
    EXPECT_TRUE(std::filesystem::is_directory(path / "inner"));
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(m_dir)) ++entries;
    EXPECT_EQ(entries, 1u);
  }
}

// A link in the place of the file is replaced, never written through: the file it points to keeps
// its content.
TEST_F(FsTest, AnUnsyncedReplaceOfALinkReplacesTheLinkNotItsTarget) {
  ASSERT_TRUE(write_file_atomic(m_dir / "elsewhere", "keep", Durability::no_fsync));
  std::filesystem::create_symlink(m_dir / "elsewhere", m_dir / "index.html");
  ASSERT_TRUE(write_file_atomic(m_dir / "index.html", "page", Durability::no_fsync));
  EXPECT_FALSE(std::filesystem::is_symlink(m_dir / "index.html"));
  EXPECT_EQ(*read_file(m_dir / "index.html"), "page");
  EXPECT_EQ(*read_file(m_dir / "elsewhere"), "keep");
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

// What read_each hands over for each name: its bytes, or the error's category and message.
using ReadOutcome = std::pair<std::string, std::optional<ErrorCategory>>;

std::vector<ReadOutcome> read_all(const Directory& dir, const std::vector<std::string>& names,
                                  Directory::Batching batching) {
  std::vector<ReadOutcome> out;
  auto status = dir.read_each(
      names,
      [&](std::size_t i, Result<std::string> content) -> Status {
        EXPECT_EQ(i, out.size());  // in order, each once
        if (content)
          out.emplace_back(std::move(*content), std::nullopt);
        else
          out.emplace_back(content.error().message(), content.error().category());
        return {};
      },
      batching);
  EXPECT_TRUE(status) << status.error().describe();
  return out;
}

TEST_F(FsTest, ReadEachBatchedAndOneByOneAgreeOnEveryKindOfEntry) {
  // 150 names cross two batch boundaries (64 per io_uring_enter); sizes around the 4 KiB a batch
  // reads per file; a missing name, a folder and an unreadable file among them.
  std::vector<std::string> names;
  std::vector<std::optional<std::string>> expected;
  for (int i = 0; i < 150; ++i) {
    const std::string name = "f" + std::to_string(i) + ".info.json";
    names.push_back(name);
    if (i % 37 == 5) {
      expected.push_back(std::nullopt);  // never written
      continue;
    }
    const std::size_t sizes[] = {0, 1, 600, 4095, 4096, 4097, 3 * 8192 + 17};
    std::string text(sizes[i % 7], static_cast<char>('a' + i % 26));
    ASSERT_TRUE(write_file_atomic(m_dir / name, text));
    expected.push_back(std::move(text));
  }
  std::filesystem::create_directory(m_dir / "sub");
  names.push_back("sub");
  ASSERT_TRUE(write_file_atomic(m_dir / "secret", "x", Durability::no_fsync, 0000));
  names.push_back("secret");
  auto dir = Directory::open(m_dir);
  ASSERT_TRUE(dir) << dir.error().describe();

  const auto batched = read_all(*dir, names, Directory::Batching::ring);
  const auto one_by_one = read_all(*dir, names, Directory::Batching::one_by_one);
  ASSERT_EQ(batched.size(), names.size());
  EXPECT_EQ(batched, one_by_one);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i]) {
      EXPECT_EQ(batched[i], ReadOutcome(*expected[i], std::nullopt)) << names[i];
    } else {
      EXPECT_EQ(batched[i].second, ErrorCategory::not_found) << names[i];
      EXPECT_NE(batched[i].first.find((m_dir / names[i]).string()), std::string::npos) << batched[i].first;
    }
  }
  EXPECT_EQ(batched[150].second, ErrorCategory::io);  // a folder opens but does not read
  EXPECT_NE(batched[150].first.find("cannot read " + (m_dir / "sub").string()), std::string::npos);
  if (::geteuid() != 0) {
    EXPECT_EQ(batched[151].second, ErrorCategory::io);  // root reads mode 0000 anyway
  }
}

TEST_F(FsTest, ReadEachStopsAtTheVisitorsError) {
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(write_file_atomic(m_dir / std::to_string(i), "x"));
  std::vector<std::string> names;
  for (int i = 0; i < 100; ++i) names.push_back(std::to_string(i));
  auto dir = Directory::open(m_dir);
  ASSERT_TRUE(dir);
  for (const auto batching : {Directory::Batching::ring, Directory::Batching::one_by_one}) {
    std::size_t visited = 0;
    auto status = dir->read_each(
        names,
        [&](std::size_t i, Result<std::string>) -> Status {
          ++visited;
          if (i == 70) return fail(ErrorCategory::integrity, "stop here");
          return {};
        },
        batching);
    ASSERT_FALSE(status);
    EXPECT_EQ(status.error().message(), "stop here");
    EXPECT_EQ(visited, 71u);
  }
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
