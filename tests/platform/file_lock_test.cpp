#include "platform/file_lock.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <thread>

namespace relforge::platform {
namespace {

using namespace std::chrono_literals;

// A forked child holding the flock until told to release it; it only makes async-signal-safe
// calls, as a fork of a threaded test binary must.
class LockHolder {
public:
  explicit LockHolder(const std::filesystem::path& lock_file) {
    int ready[2], release[2];
    if (::pipe(ready) != 0 || ::pipe(release) != 0) return;
    const std::string path = lock_file.string();
    m_pid = ::fork();
    if (m_pid == 0) {
      ::close(ready[0]);
      ::close(release[1]);
      const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
      const char ok = (fd >= 0 && ::flock(fd, LOCK_EX) == 0) ? 'y' : 'n';
      (void)!::write(ready[1], &ok, 1);
      char byte;
      (void)!::read(release[0], &byte, 1);  // returns on a byte or when the parent dies
      ::_exit(0);
    }
    ::close(ready[1]);
    ::close(release[0]);
    m_release_fd = release[1];
    char ok = 'n';
    m_locked = ::read(ready[0], &ok, 1) == 1 && ok == 'y';
    ::close(ready[0]);
  }
  ~LockHolder() { release(); }
  bool locked() const { return m_locked; }
  void release() {
    if (m_release_fd >= 0) {
      (void)!::write(m_release_fd, "x", 1);
      ::close(m_release_fd);
      m_release_fd = -1;
    }
    if (m_pid > 0) {
      int status = 0;
      ::waitpid(m_pid, &status, 0);
      m_pid = -1;
    }
  }

private:
  pid_t m_pid = -1;
  int m_release_fd = -1;
  bool m_locked = false;
};

class FileLockTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("relforge-lock-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::filesystem::path m_dir;
};

TEST_F(FileLockTest, AcquireCreatesParentDirectoriesAndFile) {
  const auto path = m_dir / "a" / "b" / "publish.lock";
  auto lock = FileLock::acquire(path, 0ms);
  ASSERT_TRUE(lock) << lock.error().describe();
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST_F(FileLockTest, HeldByAnotherProcessFailsWithConflictAfterWaiting) {
  const auto path = m_dir / "index.lock";
  std::filesystem::create_directories(m_dir);
  LockHolder holder(path);
  ASSERT_TRUE(holder.locked());
  const auto started = std::chrono::steady_clock::now();
  auto lock = FileLock::acquire(path, 150ms);
  const auto waited = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(lock);
  EXPECT_EQ(lock.error().category(), ErrorCategory::conflict);
  EXPECT_NE(lock.error().message().find(path.string()), std::string::npos);
  EXPECT_GE(waited, 150ms);
}

TEST_F(FileLockTest, AcquireSucceedsOnceTheHolderReleases) {
  const auto path = m_dir / "ledger.lock";
  std::filesystem::create_directories(m_dir);
  LockHolder holder(path);
  ASSERT_TRUE(holder.locked());
  ASSERT_FALSE(FileLock::acquire(path, 0ms));
  holder.release();
  auto lock = FileLock::acquire(path, 0ms);
  ASSERT_TRUE(lock) << lock.error().describe();
}

TEST_F(FileLockTest, WaitingAcquireGetsTheLockWhenReleasedDuringTheWait) {
  const auto path = m_dir / "wait.lock";
  std::filesystem::create_directories(m_dir);
  std::optional<LockHolder> holder(std::in_place, path);
  ASSERT_TRUE(holder->locked());
  std::optional<FileLock> first;
  {
    // Our own lock object stands in for the second process: release the child's lock while a
    // thread waits in acquire().
    std::thread releaser([&holder] {
      std::this_thread::sleep_for(100ms);
      holder->release();
    });
    auto lock = FileLock::acquire(path, 20s);
    releaser.join();
    ASSERT_TRUE(lock) << lock.error().describe();
    first.emplace(std::move(*lock));
  }
  // flock is per open file: a second acquire in this process is refused while `first` lives.
  auto second = FileLock::acquire(path, 0ms);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().category(), ErrorCategory::conflict);
  EXPECT_NE(second.error().message().find("held by process " + std::to_string(::getpid())),
            std::string::npos);
  first.reset();
  EXPECT_TRUE(FileLock::acquire(path, 0ms));
}

TEST_F(FileLockTest, UncreatableDirectoryIsIoError) {
  std::filesystem::create_directories(m_dir);
  {
    const int fd = ::open((m_dir / "file").c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  auto lock = FileLock::acquire(m_dir / "file" / "sub" / "x.lock", 0ms);
  ASSERT_FALSE(lock);
  EXPECT_EQ(lock.error().category(), ErrorCategory::io);
}

}  // namespace
}  // namespace relforge::platform
