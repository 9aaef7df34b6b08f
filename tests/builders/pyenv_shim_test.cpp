// pyenv shims seen through: a fake pyenv root laid out as pyenv lays it out (shims written in
// pyenv's own format, versions/<name>/bin), and, where pyenv is installed, the machine's real pyenv
// as the oracle (`pyenv which`).
#include "builders/pyenv_shim.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "builders/runner.hpp"
#include "core/text.hpp"
#include "platform/fs.hpp"
#include "tests/support/run.hpp"

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

// What `pyenv rehash` writes for each command (pyenv 2.x).
std::string shim_text(const fs::path& root) {
  return "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\nprogram=\"${0##*/}\"\n\n"
         "export PYENV_ROOT=\"" +
         root.string() + "\"\nSHIM_PATH=${0%/*}\nif [[ $SHIM_PATH != \"" + (root / "shims").string() +
         "\" ]]; then\n  export _PYENV_SHIM_PATH=\"$SHIM_PATH\"\nfi\nexec \"" + root.string() +
         "/libexec/pyenv\" exec \"$program\" \"$@\"\n";
}

class PyenvShimTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-pyenv-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    m_root = m_dir / "pyenv";
    // "pyenv" itself only records that a shim ran: detection must not run one it can see through.
    write(m_root / "libexec" / "pyenv",
          "#!/bin/sh\necho \"$2\" >>'" + (m_dir / "ran").string() + "'\nexit 127\n");
    for (const auto* command : {"python3.11", "python3.12", "python3.13"})
      write(m_root / "shims" / command, shim_text(m_root));
    interpreter("3.11.7", "python3.11", "3.11");
    interpreter("3.12.1", "python3.12", "3.12");
    interpreter("3.11.9", "python3.11", "3.11");
    write(m_root / "version", "3.11.7\n", false);
    m_settings.cwd = m_dir / "work" / "project";
    m_settings.dir = m_settings.cwd;
    fs::create_directories(m_settings.cwd);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  void write(const fs::path& path, const std::string& text, bool executable = true) {
    fs::create_directories(path.parent_path());
    ASSERT_TRUE(platform::write_file_atomic(path, text, platform::Durability::no_fsync));
    if (executable) fs::permissions(path, fs::perms::owner_all);
  }
  // An installed version whose interpreter answers detection's question.
  void interpreter(const std::string& version, const std::string& command, const std::string& answer) {
    write(m_root / "versions" / version / "bin" / command, "#!/bin/sh\nprintf '" + answer + "\\nTrue\\n'\n");
  }
  fs::path bin(const std::string& version, const std::string& command) {
    return m_root / "versions" / version / "bin" / command;
  }
  ShimResolution resolve(const std::string& command) {
    return resolve_pyenv_shim(m_root, command, m_settings, m_path_dirs);
  }

  fs::path m_dir;
  fs::path m_root;
  PyenvSettings m_settings;
  std::vector<fs::path> m_path_dirs;
};

TEST_F(PyenvShimTest, AShimIsKnownByItsRootAndItsHandOverToPyenv) {
  EXPECT_EQ(pyenv_shim_root(m_root / "shims" / "python3.11"), m_root);
  write(m_dir / "script", "#!/bin/sh\nexport PYENV_ROOT=\"" + m_root.string() + "\"\nexec python3 \"$@\"\n");
  EXPECT_EQ(pyenv_shim_root(m_dir / "script"), std::nullopt);
  EXPECT_EQ(pyenv_shim_root(bin("3.11.7", "python3.11")), std::nullopt);
  EXPECT_EQ(pyenv_shim_root(m_dir / "missing"), std::nullopt);
  if (fs::exists("/usr/bin/python3.11")) {
    EXPECT_EQ(pyenv_shim_root("/usr/bin/python3.11"), std::nullopt);
  }
}

TEST_F(PyenvShimTest, TheGlobalVersionFileChoosesAndOtherVersionsAreNotFound) {
  const auto found = resolve("python3.11");
  EXPECT_EQ(found.target, ShimTarget::interpreter);
  EXPECT_EQ(found.path, bin("3.11.7", "python3.11"));
  // 3.12.1 is installed but not active: the shim answers "command not found".
  EXPECT_EQ(resolve("python3.12").target, ShimTarget::none);
  // ...unless PATH has one outside pyenv's shims, which pyenv-which tries last.
  write(m_dir / "usr-bin" / "python3.12", "#!/bin/sh\n");
  m_path_dirs = {m_root / "shims", m_dir / "usr-bin"};
  EXPECT_EQ(resolve("python3.12").target, ShimTarget::system);
}

TEST_F(PyenvShimTest, PyenvVersionListsVersionsInOrder) {
  m_settings.version = "3.12.1:3.11.7:3.11.9";
  EXPECT_EQ(resolve("python3.12").path, bin("3.12.1", "python3.12"));
  EXPECT_EQ(resolve("python3.11").path, bin("3.11.7", "python3.11"));
  m_settings.version = "3.11.9:3.11.7";
  EXPECT_EQ(resolve("python3.11").path, bin("3.11.9", "python3.11"));
  m_settings.version = "system";
  EXPECT_EQ(resolve("python3.11").target, ShimTarget::none);
  m_settings.version = "python-3.12.1";  // pyenv drops the "python-" of a name it does not have
  EXPECT_EQ(resolve("python3.12").path, bin("3.12.1", "python3.12"));
}

TEST_F(PyenvShimTest, TheNearestPythonVersionFileWinsOverTheGlobalOne) {
  write(m_dir / "work" / ".python-version", "# pinned for this checkout\n\n  3.12.1  extra words\r\n3.11.7\n",
        false);
  EXPECT_EQ(resolve("python3.12").path, bin("3.12.1", "python3.12"));
  EXPECT_EQ(resolve("python3.11").path, bin("3.11.7", "python3.11"));
  // PYENV_DIR is searched before the working folder.
  write(m_dir / "elsewhere" / ".python-version", "3.11.7\n", false);
  m_settings.dir = m_dir / "elsewhere";
  EXPECT_EQ(resolve("python3.12").target, ShimTarget::none);
  // An empty file is no version: "system".
  write(m_dir / "elsewhere" / ".python-version", "\n# nothing\n", false);
  EXPECT_EQ(resolve("python3.11").target, ShimTarget::none);
}

TEST_F(PyenvShimTest, WhatPyenvWouldResolveFurtherIsLeftToTheShim) {
  for (const auto* version : {"3.12", "3.11.7:", "9.9.9", "python-9.9"}) {
    m_settings.version = version;
    EXPECT_EQ(resolve("python3.12").target, ShimTarget::unsure) << version;
  }
  m_settings.version.reset();
  for (const std::string& file :
       {std::string("3.11.7/envs/venv\n"), std::string("..\n"), std::string(2000, '3') + "\n"}) {
    write(m_settings.cwd / ".python-version", file, false);
    EXPECT_EQ(resolve("python3.11").target, ShimTarget::unsure);
  }
}

TEST_F(PyenvShimTest, FifosAndHugeFilesAreNeitherShimsNorVersionFiles) {
  // A FIFO would block a reader until someone writes: neither detection nor resolution opens one.
  fs::create_directories(m_dir / "odd");
  ASSERT_EQ(::mkfifo((m_dir / "odd" / "python3.11").c_str(), 0755), 0);
  EXPECT_EQ(pyenv_shim_root(m_dir / "odd" / "python3.11"), std::nullopt);
  ASSERT_EQ(::mkfifo((m_settings.cwd / ".python-version").c_str(), 0644), 0);
  EXPECT_EQ(resolve("python3.11").path, bin("3.11.7", "python3.11"));  // the global file, as pyenv does
  fs::remove(m_settings.cwd / ".python-version");
  // pyenv reads a version file to its end; relforge reads 64 KiB and leaves a longer one to the shim.
  std::string huge;
  while (huge.size() <= 64 * 1024) huge += "# a comment line that pyenv skips\n";
  write(m_settings.cwd / ".python-version", huge + "3.11.7\n", false);
  EXPECT_EQ(resolve("python3.11").target, ShimTarget::unsure);
  DetectOptions options;
  options.search_dirs = {m_dir / "odd"};
  options.pyenv = m_settings;
  const auto runner = detect_local_runner(options);
  ASSERT_TRUE(runner);
  EXPECT_TRUE(runner->pythons.empty());
}

TEST_F(PyenvShimTest, DetectionAsksTheResolvedInterpreterAndRunsNoShim) {
  write(m_dir / "usr-bin" / "python3.13", "#!/bin/sh\nprintf '3.13\\nTrue\\n'\n");
  DetectOptions options;
  options.search_dirs = {m_root / "shims", m_dir / "usr-bin"};
  options.preferred_dirs = {m_dir / "usr-bin"};
  options.pyenv = m_settings;
  const auto runner = detect_local_runner(options);
  ASSERT_TRUE(runner);
  ASSERT_EQ(runner->pythons.size(), 2u);
  EXPECT_EQ(runner->pythons[0].path, bin("3.11.7", "python3.11"));
  EXPECT_EQ(runner->pythons[1].path, m_dir / "usr-bin" / "python3.13");
  EXPECT_FALSE(fs::exists(m_dir / "ran")) << relforge::test::slurp(m_dir / "ran");

  // A prefix in the settings: the shim itself is asked, as before.
  options.pyenv.version = "3.12";
  const auto asked = detect_local_runner(options);
  ASSERT_TRUE(asked);
  const std::string log = relforge::test::slurp(m_dir / "ran");
  auto ran = core::split(log, '\n');  // asked several at once: in any order
  std::sort(ran.begin(), ran.end());
  EXPECT_EQ(ran, (std::vector<std::string_view>{"", "python3.11", "python3.12", "python3.13"}));
}

// The machine's own pyenv, when it has one, is the oracle: for each python3.X shim and a few
// settings, the resolution agrees with `pyenv which` (a path, or failure for "none"). Every `pyenv
// which` costs ~0.5 s of CPU, so of the commands no version has, two per setting are asked.
TEST(PyenvShimOracle, AgreesWithPyenvWhichOnThisMachine) {
  const char* home = std::getenv("HOME");
  const fs::path root = std::getenv("PYENV_ROOT") ? fs::path(std::getenv("PYENV_ROOT"))
                                                  : fs::path(home ? home : "/") / ".pyenv";
  if (!fs::exists(root / "libexec" / "pyenv") || !fs::is_directory(root / "shims"))
    GTEST_SKIP() << "pyenv is not installed here (" << root << ")";
  std::vector<std::string> installed;  // CPython 3 versions
  for (const auto& entry : fs::directory_iterator(root / "versions")) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_symlink() && name.starts_with("3.")) installed.push_back(name);
  }
  std::sort(installed.begin(), installed.end());
  std::vector<std::optional<std::string>> settings = {std::nullopt, "system"};
  if (installed.size() >= 2) settings.push_back(installed.back() + ":" + installed.front());
  PyenvSettings pyenv;
  pyenv.cwd = fs::temp_directory_path();
  pyenv.dir = pyenv.cwd;
  const std::vector<fs::path> path_dirs = {"/usr/local/bin", "/usr/bin", "/bin"};
  int compared = 0;
  for (const auto& version : settings) {
    pyenv.version = version;
    int nones = 0;
    for (const auto& entry : fs::directory_iterator(root / "shims")) {
      const std::string command = entry.path().filename().string();
      // The names detection asks: python3.X and python3.Xt.
      const auto minor = command.substr(std::min<std::size_t>(command.size(), 8));
      if (!command.starts_with("python3.") || minor.empty() ||
          minor.find_first_not_of("0123456789") < minor.size() - (minor.ends_with('t') ? 1 : 0))
        continue;
      ASSERT_EQ(pyenv_shim_root(entry.path()), root) << entry.path();
      const auto resolved = resolve_pyenv_shim(root, command, pyenv, path_dirs);
      if (resolved.target == ShimTarget::unsure || (resolved.target == ShimTarget::none && ++nones > 2))
        continue;
      const std::string env =
          "cd " + relforge::test::shell_quote(pyenv.cwd.string()) + " && PATH=" +
          relforge::test::shell_quote((root / "bin").string() + ":/usr/local/bin:/usr/bin:/bin") +
          " PYENV_ROOT=" + relforge::test::shell_quote(root.string()) + " PYENV_DIR= " +
          (version ? "PYENV_VERSION=" + relforge::test::shell_quote(*version) : "PYENV_VERSION=");
      const auto which = relforge::test::run_shell(
          env + " " + relforge::test::shell_quote((root / "libexec" / "pyenv").string()) + " which " +
          command + " 2>/dev/null");
      const std::string said = which.out.empty() ? "" : which.out.substr(0, which.out.find('\n'));
      const std::string where = command + " with PYENV_VERSION=" + version.value_or("(unset)");
      switch (resolved.target) {
        case ShimTarget::interpreter:
          EXPECT_EQ(said, resolved.path.string()) << where;
          break;
        case ShimTarget::system:
          EXPECT_EQ(which.exit_code, 0) << where;
          EXPECT_FALSE(said.starts_with(root.string())) << where << ": " << said;
          break;
        case ShimTarget::none:
          EXPECT_NE(which.exit_code, 0) << where << ": " << said;
          break;
        case ShimTarget::unsure:
          break;
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace relforge::builders
