#include "platform/process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace relforge::platform {
namespace {

using namespace std::chrono_literals;

ProcessSpec shell(const std::string& script) {
  return ProcessSpec{.argv = {"sh", "-c", script}};
}

class ProcessTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("relforge-process-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::filesystem::path m_dir;
};

TEST_F(ProcessTest, CapturesStdoutStderrAndExitCode) {
  auto result = run_process(shell("echo out; echo err >&2; exit 3"));
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->signal, 0);
  EXPECT_FALSE(result->timed_out);
  EXPECT_EQ(result->out, "out\n");
  EXPECT_EQ(result->err, "err\n");
}

TEST_F(ProcessTest, ZeroExitAndPathLookup) {
  auto result = run_process({.argv = {"true"}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->exit_code, 0);
  const auto sh = find_program("sh");
  ASSERT_TRUE(sh.has_value());
  EXPECT_EQ(sh->filename(), "sh");
  EXPECT_TRUE(sh->is_absolute());
  EXPECT_FALSE(find_program("relforge-no-such-program-xyz").has_value());
}

TEST_F(ProcessTest, KilledBySignalReportsTheSignal) {
  auto result = run_process(shell("kill -KILL $$"));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->exit_code, -1);
  EXPECT_EQ(result->signal, SIGKILL);
  EXPECT_FALSE(result->timed_out);
}

TEST_F(ProcessTest, MissingProgramIsIoError) {
  auto result = run_process({.argv = {"relforge-no-such-program-xyz", "--help"}});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::io);
  EXPECT_NE(result.error().message().find("relforge-no-such-program-xyz"), std::string::npos);

  auto absolute = run_process({.argv = {(m_dir / "missing-binary").string()}});
  ASSERT_FALSE(absolute);
  EXPECT_EQ(absolute.error().category(), ErrorCategory::io);
  EXPECT_NE(absolute.error().message().find("missing-binary"), std::string::npos);
}

TEST_F(ProcessTest, NonExecutableFileIsIoError) {
  std::ofstream(m_dir / "script.sh") << "echo hi\n";
  auto result = run_process({.argv = {(m_dir / "script.sh").string()}});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::io);
  EXPECT_NE(result.error().message().find("Permission denied"), std::string::npos);
}

TEST_F(ProcessTest, MissingWorkingDirectoryIsIoError) {
  auto spec = shell("pwd");
  spec.working_dir = m_dir / "nope";
  auto result = run_process(spec);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::io);
  EXPECT_NE(result.error().message().find("nope"), std::string::npos);
}

TEST_F(ProcessTest, RunsInWorkingDirectory) {
  auto spec = shell("pwd -P");
  spec.working_dir = m_dir;
  auto result = run_process(spec);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->out, std::filesystem::canonical(m_dir).string() + "\n");
}

TEST_F(ProcessTest, ChildLeadsItsOwnProcessGroup) {
  auto result = run_process(shell("cut -d' ' -f5 /proc/$$/stat; echo $$"));
  ASSERT_TRUE(result);
  std::istringstream lines(result->out);
  long pgid = 0, pid = 0;
  lines >> pgid >> pid;
  EXPECT_GT(pid, 0);
  EXPECT_EQ(pgid, pid);
}

TEST_F(ProcessTest, TimeoutKillsChildAndGrandchild) {
  // The grandchild (background sleep) holds the output pipes: unless the whole group dies the
  // run would last 30 s instead of returning promptly.
  auto spec = shell("sleep 30 & sleep 30");
  spec.timeout = 200ms;
  auto result = run_process(spec);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->signal, SIGTERM);
  EXPECT_LT(result->duration, 10s);
  EXPECT_GE(result->duration, 200ms);
}

TEST_F(ProcessTest, TimeoutEscalatesToSigkillWhenTermIsIgnored) {
  auto spec = shell("trap '' TERM; echo ready; while :; do sleep 0.05; done");
  spec.timeout = 100ms;
  spec.kill_grace = 200ms;
  auto result = run_process(spec);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->signal, SIGKILL);
  EXPECT_EQ(result->out, "ready\n");
  EXPECT_GE(result->duration, 300ms);
}

TEST_F(ProcessTest, LargeOutputOnBothStreamsDoesNotDeadlock) {
  // 4 MiB on each stream, far above the 64 KiB pipe buffer.
  auto result = run_process(
      shell("head -c 4194304 /dev/zero | tr '\\0' a; head -c 4194304 /dev/zero | tr '\\0' b >&2"));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->exit_code, 0);
  ASSERT_EQ(result->out.size(), 4194304u);
  ASSERT_EQ(result->err.size(), 4194304u);
  EXPECT_EQ(result->out.find_first_not_of('a'), std::string::npos);
  EXPECT_EQ(result->err.find_first_not_of('b'), std::string::npos);
}

TEST_F(ProcessTest, StdinDataIsDeliveredAndDefaultStdinIsEmpty) {
  auto spec = ProcessSpec{.argv = {"cat"}};
  spec.stdin_data = std::string(3 * 1024 * 1024, 'z');  // larger than a pipe: needs polling
  auto result = run_process(spec);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->out, *spec.stdin_data);

  auto empty = run_process({.argv = {"cat"}});
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->out, "");
}

TEST_F(ProcessTest, ChildIgnoringStdinDoesNotKillUs) {
  auto spec = shell("exit 0");
  spec.stdin_data = std::string(1024 * 1024, 'x');
  auto result = run_process(spec);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->exit_code, 0);
}

TEST_F(ProcessTest, CleanEnvironmentHasOnlyGivenVariables) {
  auto spec = ProcessSpec{.argv = {"/usr/bin/env"}};
  spec.environment_mode = EnvironmentMode::clean;
  spec.environment = {{"ONLY", "this"}, {"ALSO", "that"}};
  auto result = run_process(spec);
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(result->out, "ALSO=that\nONLY=this\n");
}

TEST_F(ProcessTest, InheritedEnvironmentAddsAndOverrides) {
  ::setenv("RELFORGE_PROCESS_TEST_VAR", "parent", 1);
  auto spec = shell("echo \"$RELFORGE_PROCESS_TEST_VAR $EXTRA\"; test -n \"$PATH\"");
  spec.environment = {{"EXTRA", "added"}};
  auto result = run_process(spec);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->out, "parent added\n");
  EXPECT_EQ(result->exit_code, 0);
  spec.environment["RELFORGE_PROCESS_TEST_VAR"] = "child";
  result = run_process(spec);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->out, "child added\n");
  ::unsetenv("RELFORGE_PROCESS_TEST_VAR");
}

// As a shell does, PATH lookup takes the first regular executable file: an executable FIFO (or
// device) of the same name in an earlier folder is passed over, not run into EACCES.
TEST_F(ProcessTest, PathLookupSkipsExecutableNonFiles) {
  const auto fifo_dir = m_dir / "a";
  const auto real_dir = m_dir / "b";
  std::filesystem::create_directories(fifo_dir);
  std::filesystem::create_directories(real_dir);
  ASSERT_EQ(::mkfifo((fifo_dir / "relforge-probe").c_str(), 0755), 0);
  ASSERT_EQ(::chmod((fifo_dir / "relforge-probe").c_str(), 0755), 0);
  std::ofstream(real_dir / "relforge-probe") << "#!/bin/sh\necho found\n";
  std::filesystem::permissions(real_dir / "relforge-probe", std::filesystem::perms::owner_all);
  auto spec = ProcessSpec{.argv = {"relforge-probe"}};
  spec.environment = {{"PATH", fifo_dir.string() + ":" + real_dir.string()}};
  auto result = run_process(spec);
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(result->out, "found\n");
}

TEST_F(ProcessTest, OutputFileReceivesBothStreamsAppended) {
  const auto log = m_dir / "build.log";
  std::ofstream(log) << "previous\n";
  auto spec = shell("echo one; echo two >&2");
  spec.output_file = log;
  auto result = run_process(spec);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->out, "");
  EXPECT_EQ(result->err, "");
  std::ifstream in(log);
  std::stringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), "previous\none\ntwo\n");
}

TEST_F(ProcessTest, UnwritableOutputFileIsIoError) {
  auto spec = shell("echo x");
  spec.output_file = m_dir / "missing-dir" / "log";
  auto result = run_process(spec);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::io);
  EXPECT_NE(result.error().message().find("missing-dir"), std::string::npos);
}

TEST_F(ProcessTest, ConcurrentRunsDoNotLeakPipesIntoEachOther) {
  // If one child inherited another's stdin write end, that `cat` would never see EOF and hang.
  std::vector<std::thread> threads;
  std::vector<std::string> outputs(4);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    threads.emplace_back([i, &outputs] {
      for (int round = 0; round < 5; ++round) {
        auto spec = ProcessSpec{.argv = {"cat"}};
        spec.stdin_data = std::string(100000 + i, static_cast<char>('a' + i));
        spec.timeout = 20s;
        auto result = run_process(spec);
        if (!result || result->timed_out || result->out != *spec.stdin_data) return;
      }
      outputs[i] = "ok";
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(outputs, std::vector<std::string>(4, "ok"));
}

TEST_F(ProcessTest, EmptyArgvIsRejected) {
  auto result = run_process({});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::internal);
}

}  // namespace
}  // namespace relforge::platform
