// The temp files registered while a write is in progress are removed when SIGINT, SIGTERM or
// SIGHUP ends the process, which still dies of the signal; nothing else is removed.
#include "platform/interrupt_cleanup.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <filesystem>
#include <fstream>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace relforge::platform {
namespace {

namespace fs = std::filesystem;

class InterruptCleanupTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-interrupt-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path touch(const std::string& name) {
    std::ofstream(m_dir / name) << "partial";
    return m_dir / name;
  }

  // Runs `body` in a forked child and returns its wait status.
  static int in_child(const std::function<void()>& body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      body();
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
  }

  fs::path m_dir;
};

TEST_F(InterruptCleanupTest, EachSignalRemovesTheRegisteredFilesAndStillEndsTheProcess) {
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    const auto registered = touch("out.whl.partial");
    const auto kept = touch("other.whl");
    const int status = in_child([&] {
      install_interrupt_cleanup();
      const RemovedOnInterrupt removed(registered);
      ::raise(signal_number);
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << signal_number;
    EXPECT_EQ(WTERMSIG(status), signal_number);
    EXPECT_FALSE(fs::exists(registered)) << signal_number;
    EXPECT_TRUE(fs::exists(kept)) << signal_number;
  }
}

TEST_F(InterruptCleanupTest, ANameInAnOpenDirectoryIsRemovedThere) {
  const auto registered = touch(".page.html.tmp.1.2");
  const int status = in_child([&] {
    install_interrupt_cleanup();
    const int dir = ::open(m_dir.c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_TRUE(::chdir("/") == 0);
    const RemovedOnInterrupt removed(dir, ".page.html.tmp.1.2");
    ::raise(SIGTERM);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_FALSE(fs::exists(registered));
}

TEST_F(InterruptCleanupTest, AFileNoLongerRegisteredIsLeftAlone) {
  const auto renamed_into_place = touch("out.whl.partial");
  const int status = in_child([&] {
    install_interrupt_cleanup();
    { const RemovedOnInterrupt removed(renamed_into_place); }
    ::raise(SIGTERM);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(fs::exists(renamed_into_place));
}

TEST_F(InterruptCleanupTest, ASignalTheParentIgnoredStaysIgnored) {
  const auto registered = touch("out.whl.partial");
  const int status = in_child([&] {
    ::signal(SIGHUP, SIG_IGN);  // as nohup leaves it
    install_interrupt_cleanup();
    const RemovedOnInterrupt removed(registered);
    ::raise(SIGHUP);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(fs::exists(registered));
}

// A child forked to exec a program keeps the handler until the exec: a signal there must not
// remove the parent's files.
TEST_F(InterruptCleanupTest, AForkedChildDoesNotRemoveItsParentsFiles) {
  const auto registered = touch("out.whl.partial");
  const int status = in_child([&] {
    install_interrupt_cleanup();
    const RemovedOnInterrupt removed(registered);
    const int grandchild = in_child([] { ::raise(SIGTERM); });
    if (!WIFSIGNALED(grandchild) || WTERMSIG(grandchild) != SIGTERM) ::_exit(3);
    ::_exit(fs::exists(registered) ? 0 : 4);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(fs::exists(registered));
}

TEST_F(InterruptCleanupTest, PastSixtyFourFilesTheRestAreLeftAsACrashWouldLeaveThem) {
  const int status = in_child([&] {
    install_interrupt_cleanup();
    std::vector<std::unique_ptr<RemovedOnInterrupt>> held;
    for (int i = 0; i < 70; ++i)
      held.push_back(std::make_unique<RemovedOnInterrupt>(touch(std::to_string(i))));
    ::raise(SIGTERM);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  int left = 0;
  for (int i = 0; i < 70; ++i) left += fs::exists(m_dir / std::to_string(i)) ? 1 : 0;
  EXPECT_EQ(left, 6);
}

}  // namespace
}  // namespace relforge::platform
