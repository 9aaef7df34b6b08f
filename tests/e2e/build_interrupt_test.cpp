// End-to-end: Ctrl-C (SIGINT) and SIGTERM during `relforge build` kill every running cell's
// process group, record the attempts as interrupted and exit 130; a run killed with SIGKILL
// leaves "running" rows that the next run marks interrupted.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

// Two cpu cells whose recipe records its pid and its child's pid, then waits on a long sleep.
class BuildInterruptTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-e2e-intr-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "marks");
    std::ofstream(m_dir / "relforge.toml")
        << "[project]\nname = \"demo\"\n[matrix]\nid = \"{python}-{accel}\"\n"
           "[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\nvalues = [\"3.11\"]\n"
           "[[matrix.axis]]\nname = \"accel\"\nvalues = [\n"
           "  { value = \"cpu\", type = \"cpu\", version = \"\", desired = \"cpu\" },\n"
           "  { value = \"cpu2\", type = \"cpu\", version = \"\", desired = \"cpu2\" },\n]\n"
           "[build]\nversion = \"1.0\"\n"
           "[recipe]\ncommand = [\"sh\", \"recipe.sh\"]\ntimeout = 120\n"
           "[recipe.env]\nMARK = \""
        << (m_dir / "marks").string() << "\"\n";
    std::ofstream(m_dir / "recipe.sh") << "echo \"$$\" > \"$MARK/$RELFORGE_CELL.pid\"\n"
                                          "sleep 60 &\n"
                                          "echo \"$!\" > \"$MARK/$RELFORGE_CELL.tmp\"\n"
                                          "mv \"$MARK/$RELFORGE_CELL.tmp\" \"$MARK/$RELFORGE_CELL.child\"\n"
                                          "wait\n";
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // Starts a build in the background, waits until both recipes run, sends `signal`, waits.
  RunResult build_and_signal(const std::string& signal, const std::string& cells) {
    const std::string marks = shell_quote((m_dir / "marks").string());
    const std::string script = shell_quote(relforge::test::relforge_binary()) + " build --config " +
                               shell_quote((m_dir / "relforge.toml").string()) + " --state-dir " +
                               shell_quote((m_dir / "state").string()) + " --jobs 2 " + cells + " >" +
                               shell_quote((m_dir / "out").string()) + " 2>" +
                               shell_quote((m_dir / "err").string()) +
                               " & pid=$!\n"
                               "n=0; while [ $(ls " +
                               marks + " | grep -c '\\.child$') -lt " + std::to_string(m_expected) +
                               " ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done\n"
                               "kill -" +
                               signal + " $pid; wait $pid; echo \"rc=$?\"\n";
    auto result = run_shell(script);
    result.out += slurp(m_dir / "out");
    result.err = slurp(m_dir / "err");
    return result;
  }

  std::string ledger_rows() {
    return run_shell("/usr/bin/python3 -c " +
                     shell_quote("import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
                                 "print(';'.join(c + ':' + r for c, r in db.execute("
                                 "'SELECT cell, result FROM attempts ORDER BY cell, id')))") +
                     " " + shell_quote((m_dir / "state" / "state.db").string()))
        .out;
  }

  // Every recorded pid (recipes and their children) that still exists and is not a zombie.
  std::string survivors() {
    return run_shell("cd " + shell_quote((m_dir / "marks").string()) +
                     " && n=0; while [ $n -lt 50 ]; do left=; for f in *.pid *.child; do p=$(cat $f); "
                     "if [ -e /proc/$p ] && ! grep -q ') Z ' /proc/$p/stat; then left=\"$left$f=$p\n\"; fi; "
                     "done; [ -z \"$left\" ] && break; sleep 0.1; n=$((n+1)); done; printf \"$left\"")
        .out;
  }

  fs::path m_dir;
  int m_expected = 2;
};

TEST_F(BuildInterruptTest, CtrlCKillsEveryRunningCellAndRecordsItInterrupted) {
  const auto result = build_and_signal("INT", "");
  EXPECT_NE(result.out.find("rc=130"), std::string::npos) << result.out << result.err;
  EXPECT_NE(result.out.find("3.11-cpu      local     interrupted"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("3.11-cpu2     local     interrupted"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("relforge: interrupted by SIGINT: 2 running cell(s) killed and recorded as "
                            "interrupted in the ledger; rerun with --resume to build what is left"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(ledger_rows(), "3.11-cpu:interrupted;3.11-cpu2:interrupted\n");
  EXPECT_EQ(survivors(), "");
}

TEST_F(BuildInterruptTest, SigtermDoesTheSame) {
  const auto result = build_and_signal("TERM", "");
  EXPECT_NE(result.out.find("rc=130"), std::string::npos) << result.out << result.err;
  EXPECT_NE(result.err.find("relforge: interrupted by SIGTERM: 2 running cell(s)"), std::string::npos)
      << result.err;
  EXPECT_EQ(ledger_rows(), "3.11-cpu:interrupted;3.11-cpu2:interrupted\n");
  EXPECT_EQ(survivors(), "");
}

TEST_F(BuildInterruptTest, AttemptsOfARunKilledWithSigkillAreInterruptedAtTheNextStart) {
  m_expected = 1;
  const auto killed = build_and_signal("KILL", "--cell 3.11-cpu");
  EXPECT_NE(killed.out.find("rc=137"), std::string::npos) << killed.out << killed.err;
  EXPECT_EQ(ledger_rows(), "3.11-cpu:running\n");
  // SIGKILL gives relforge no chance to clean up: end the orphaned recipe ourselves.
  run_shell("/bin/kill -KILL -- -$(cat " + shell_quote((m_dir / "marks" / "3.11-cpu.pid").string()) + ")");
  std::ofstream(m_dir / "recipe.sh") << "echo quick failure; exit 1\n";
  const auto next = run_shell(shell_quote(relforge::test::relforge_binary()) + " build --config " +
                              shell_quote((m_dir / "relforge.toml").string()) + " --state-dir " +
                              shell_quote((m_dir / "state").string()) + " --cell 3.11-cpu");
  EXPECT_EQ(next.exit_code, 6) << next.out << next.err;
  EXPECT_NE(next.err.find("1 attempt(s) left running by a killed earlier run: marked interrupted"),
            std::string::npos)
      << next.err;
  EXPECT_EQ(ledger_rows(), "3.11-cpu:interrupted;3.11-cpu:failed\n");
  EXPECT_EQ(survivors(), "");
}

}  // namespace
}  // namespace relforge::test
