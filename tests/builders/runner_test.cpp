#include "builders/runner.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "platform/fs.hpp"

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

class RunnerDetectTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-runner-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // A fake interpreter answering detection's question the way a real one would.
  fs::path fake(const std::string& dir, const std::string& name, const std::string& script) {
    const auto path = m_dir / dir / name;
    fs::create_directories(path.parent_path());
    EXPECT_TRUE(platform::write_file_atomic(path, "#!/bin/sh\n" + script, platform::Durability::no_fsync));
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }

  fs::path m_dir;
};

TEST_F(RunnerDetectTest, TheSystemInterpreterWinsOverAShimOfTheSameVersion) {
  fake("shims", "python3.11", "printf '3.11\\nTrue\\n'\n");
  const auto system = fake("usr-bin", "python3.11", "printf '3.11\\nTrue\\n'\n");
  DetectOptions options;
  options.search_dirs = {m_dir / "shims", m_dir / "usr-bin"};  // the shim comes first on PATH
  options.preferred_dirs = {m_dir / "usr-bin"};
  const auto runner = detect_local_runner(options);
  ASSERT_TRUE(runner);
  ASSERT_EQ(runner->pythons.size(), 1u);
  EXPECT_EQ(runner->pythons[0].version, "3.11");
  EXPECT_EQ(runner->pythons[0].path, system);
}

TEST_F(RunnerDetectTest, HeadersMatterMoreThanThePreferredFolder) {
  const auto with_headers = fake("pyenv", "python3.12", "printf '3.12\\nTrue\\n'\n");
  fake("usr-bin", "python3.12", "printf '3.12\\nFalse\\n'\n");
  DetectOptions options;
  options.search_dirs = {m_dir / "usr-bin", m_dir / "pyenv"};
  options.preferred_dirs = {m_dir / "usr-bin"};
  const auto runner = detect_local_runner(options);
  ASSERT_TRUE(runner);
  ASSERT_EQ(runner->pythons.size(), 1u);
  EXPECT_EQ(runner->pythons[0].path, with_headers);
}

TEST_F(RunnerDetectTest, ShimsThatFailOrLieAboutTheirVersionAreSkipped) {
  fake("shims", "python3.12", "echo 'pyenv: python3.12: command not found' >&2\nexit 127\n");
  fake("shims", "python3.13", "printf '3.11\\nTrue\\n'\n");  // the name says 3.13, it is 3.11
  fake("shims", "python3.14t", "printf '3.14t\\nTrue\\n'\n");
  DetectOptions options;
  options.search_dirs = {m_dir / "shims"};
  options.preferred_dirs = {};
  const auto runner = detect_local_runner(options);
  ASSERT_TRUE(runner);
  ASSERT_EQ(runner->pythons.size(), 1u);
  EXPECT_EQ(runner->pythons[0].version, "3.14t");
}

// The real /usr/bin/python3.11 against another copy found first (here a link to it elsewhere,
// standing in for a pyenv shim): the /usr/bin one is chosen.
TEST_F(RunnerDetectTest, ThisMachinesUsrBinPython311WinsOverACopyFoundFirst) {
  if (!fs::exists("/usr/bin/python3.11") || !fs::exists("/usr/include/python3.11/Python.h"))
    GTEST_SKIP() << "no /usr/bin/python3.11 with headers on this machine (python3-dev)";
  fs::create_directories(m_dir / "shims");
  fs::create_symlink("/usr/bin/python3.11", m_dir / "shims" / "python3.11");
  DetectOptions options;
  options.search_dirs = {m_dir / "shims", "/usr/bin"};
  const auto runner = detect_local_runner(options);
  ASSERT_TRUE(runner);
  const auto* python = runner->python("3.11");
  ASSERT_NE(python, nullptr);
  EXPECT_EQ(python->path, fs::path("/usr/bin/python3.11"));
}

}  // namespace
}  // namespace relforge::builders
