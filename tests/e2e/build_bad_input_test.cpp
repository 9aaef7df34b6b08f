// End-to-end: every bad input of a build gets a clear message from the real binary and loses
// nothing: a failing recipe (the other cells go on, the log tail is shown), a cell killed by its
// timeout, a ledger locked by another run, and wheels that are corrupt, have a RECORD mismatch, a
// zip-slip path or a GLIBC_2.34 symbol in a manylinux_2_28 wheel.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

class BuildBadInputTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-e2e-bad-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "out");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // Two cpu cells, 3.11-cpu then 3.11-cpu2, built one at a time with `recipe`.
  RunResult build(const std::string& recipe, int timeout = 60, const std::string& extra = "") {
    std::ofstream(m_dir / "relforge.toml")
        << "[project]\nname = \"demo\"\n[matrix]\nid = \"{python}-{accel}\"\n"
           "[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\nvalues = [\"3.11\"]\n"
           "[[matrix.axis]]\nname = \"accel\"\nvalues = [\n"
           "  { value = \"cpu\", type = \"cpu\", version = \"\", desired = \"cpu\" },\n"
           "  { value = \"cpu2\", type = \"cpu\", version = \"\", desired = \"cpu2\" },\n]\n"
           "[build]\nversion = \"1.0\"\n"
           "[recipe]\ncommand = [\"sh\", \"recipe.sh\"]\ntimeout = "
        << timeout << "\n";
    std::ofstream(m_dir / "recipe.sh") << recipe;
    return relforge("build --jobs 1 --config " + shell_quote((m_dir / "relforge.toml").string()) +
                    " --state-dir " + shell_quote((m_dir / "state").string()) + " " + extra);
  }

  // A wheel demo-1.0-cp311-cp311-linux_x86_64.whl written by Python's zipfile; `files` is a
  // Python dict literal of extra entries; `good_record` false gives every entry a wrong hash.
  fs::path python_wheel(const std::string& files, bool good_record = true) {
    const auto path = m_dir / "demo-1.0-cp311-cp311-linux_x86_64.whl";
    const std::string script =
        "import base64, hashlib, sys, zipfile\n"
        "files = {'demo/__init__.py': b'X = 1\\n',\n"
        " 'demo-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\n',\n"
        " 'demo-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: false\\n"
        "Tag: cp311-cp311-linux_x86_64\\n'}\n"
        "files.update(" +
        files +
        ")\n"
        "good = " +
        (good_record ? "True" : "False") +
        "\n"
        "h = lambda d: base64.urlsafe_b64encode(hashlib.sha256(d if good else b'x').digest())"
        ".rstrip(b'=').decode()\n"
        "lines = ['%s,sha256=%s,%d' % (p, h(d), len(d)) for p, d in files.items()]\n"
        "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
        "    for p, d in files.items(): z.writestr(p, d)\n"
        "    z.writestr('demo-1.0.dist-info/RECORD', '\\n'.join(lines + ['demo-1.0.dist-info/RECORD,,']))\n";
    const auto made = run_shell("/usr/bin/python3 -c " + shell_quote(script) + " " +
                                shell_quote(path.string()) + " " + shell_quote(m_dir.string()));
    EXPECT_EQ(made.exit_code, 0) << made.err;
    return path;
  }

  RunResult repair(const fs::path& wheel) {
    return relforge("wheel repair " + shell_quote(wheel.string()) +
                    " --plat manylinux_2_28_x86_64 --local cpu --out " +
                    shell_quote((m_dir / "out").string()));
  }

  fs::path m_dir;
};

TEST_F(BuildBadInputTest, AFailingRecipeFailsItsCellTheOthersGoOnAndItsLogTailIsShown) {
  const auto result = build(
      "if [ \"$RELFORGE_CELL\" = 3.11-cpu ]; then echo compiling; echo 'error: boom' >&2; exit 3; fi\n"
      "echo built nothing\n");
  EXPECT_EQ(result.exit_code, 6) << result.out << result.err;
  EXPECT_NE(result.out.find("3.11-cpu      local     failed"), std::string::npos) << result.out;
  // The second cell still ran after the first failed (and failed its own way).
  EXPECT_NE(result.out.find("3.11-cpu2     local     failed"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("== 3.11-cpu: the recipe exited with 3\n   last lines of "), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("   | compiling\n   | error: boom\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("== 3.11-cpu2: the recipe succeeded but produced no wheel in $RELFORGE_OUT"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.err.find("relforge: error: 2 of 2 cells failed: see the summary and logs above"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(fs::exists(m_dir / "state" / "logs" / "3.11-cpu.log"));
}

TEST_F(BuildBadInputTest, TwoWheelsFailTheCellNamingThem) {
  const auto result =
      build("touch \"$RELFORGE_OUT/a-1.0-py3-none-any.whl\" \"$RELFORGE_OUT/b-1.0-py3-none-any.whl\"\n", 60,
            "--cell 3.11-cpu");
  EXPECT_EQ(result.exit_code, 6);
  EXPECT_NE(
      result.out.find("the recipe produced 2 wheels (a-1.0-py3-none-any.whl, b-1.0-py3-none-any.whl); a "
                      "cell builds exactly one"),
      std::string::npos)
      << result.out;
}

TEST_F(BuildBadInputTest, ACellPastItsTimeoutIsKilledAndReported) {
  const auto result = build("echo started\nsleep 30\n", 1, "--cell 3.11-cpu");
  EXPECT_EQ(result.exit_code, 6) << result.out << result.err;
  EXPECT_NE(result.out.find("3.11-cpu      local     timed_out"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("== 3.11-cpu: killed after its timeout of 1 s"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("   | started\n"), std::string::npos) << result.out;
}

TEST_F(BuildBadInputTest, ALedgerLockedByAnotherRunIsExitFiveAndBuildsNothing) {
  build("touch \"" + (m_dir / "ran").string() + "\"\n", 60, "--plan");  // writes the config only
  fs::create_directories(m_dir / "state");
  // flock(1) holds the ledger's run lock, as another relforge build would, while this one starts.
  const auto locked = run_shell("flock " + shell_quote((m_dir / "state" / "state.db.lock").string()) + " " +
                                shell_quote(relforge::test::relforge_binary()) + " build --config " +
                                shell_quote((m_dir / "relforge.toml").string()) + " --state-dir " +
                                shell_quote((m_dir / "state").string()) + " --cell 3.11-cpu");
  EXPECT_EQ(locked.exit_code, 5) << locked.out << locked.err;
  EXPECT_NE(locked.err.find("the build ledger " + (m_dir / "state" / "state.db").string() +
                            " is locked by another relforge run"),
            std::string::npos)
      << locked.err;
  EXPECT_TRUE(locked.out.empty());
  EXPECT_FALSE(fs::exists(m_dir / "ran"));
}

TEST_F(BuildBadInputTest, ACorruptWheelIsRefusedNamingTheFile) {
  const auto wheel = m_dir / "demo-1.0-cp311-cp311-linux_x86_64.whl";
  std::ofstream(wheel) << "PK\x03\x04 truncated upload";
  const auto verified = relforge("wheel verify " + shell_quote(wheel.string()));
  EXPECT_EQ(verified.exit_code, 9);
  EXPECT_NE(verified.err.find("'" + wheel.string() + "' is not a readable zip archive"), std::string::npos)
      << verified.err;
  EXPECT_EQ(repair(wheel).exit_code, 9);
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

TEST_F(BuildBadInputTest, ARecordMismatchNamesTheEntry) {
  const auto wheel = python_wheel("{}", false);
  const auto verified = relforge("wheel verify " + shell_quote(wheel.string()));
  EXPECT_EQ(verified.exit_code, 9);
  EXPECT_NE(verified.err.find("'demo/__init__.py': RECORD says sha256="), std::string::npos) << verified.err;
}

TEST_F(BuildBadInputTest, AZipSlipPathIsRefusedAndNothingIsWritten) {
  const auto wheel = python_wheel("{'../../evil.py': b'import os'}");
  const auto verified = relforge("wheel verify " + shell_quote(wheel.string()));
  EXPECT_NE(verified.exit_code, 0);
  EXPECT_NE(verified.err.find("'../../evil.py' has a '..' component"), std::string::npos) << verified.err;
  EXPECT_NE(repair(wheel).exit_code, 0);
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  EXPECT_FALSE(fs::exists(m_dir.parent_path().parent_path() / "evil.py"));
}

// A library built here that needs pthread_join@GLIBC_2.34 may not be tagged manylinux_2_28.
TEST_F(BuildBadInputTest, APolicyViolationNamesTheFileAndTheSymbol) {
  std::ofstream(m_dir / "lib.c")
      << "#include <pthread.h>\nint f(pthread_t t) { return pthread_join(t, 0); }\n";
  const auto compiled = run_shell("cc -shared -fPIC -o " + shell_quote((m_dir / "libnew.so").string()) + " " +
                                  shell_quote((m_dir / "lib.c").string()));
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  const auto glibc = run_shell("ldd --version | head -1 | grep -o '2\\.[0-9]*$'");
  if (std::stoi(glibc.out.substr(2)) < 34) GTEST_SKIP() << "glibc older than 2.34 here: no GLIBC_2.34 symbol";
  const auto wheel = python_wheel("{'demo/libnew.so': open(sys.argv[2] + '/libnew.so', 'rb').read()}");
  const auto repaired = repair(wheel);
  EXPECT_EQ(repaired.exit_code, 9) << repaired.out << repaired.err;
  EXPECT_NE(repaired.err.find("demo/libnew.so needs pthread_join@GLIBC_2.34"), std::string::npos)
      << repaired.err;
  EXPECT_TRUE(repaired.out.empty());
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

}  // namespace
}  // namespace relforge::test
