#include "builders/smoke.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "platform/fs.hpp"
#include "tests/builders/support.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

class SmokeTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-smoke-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    const auto made = relforge::test::run_shell(
        "/usr/bin/python3 " +
        relforge::test::shell_quote(relforge::test::source_path("tests/fixtures/channels/make_wheel.py")) +
        " " + relforge::test::shell_quote(m_dir.string()) + " demo 1.0 --payload 'VALUE = 7\n'");
    ASSERT_EQ(made.exit_code, 0) << made.err;
    m_wheel = std::string(made.out.substr(0, made.out.find('\n')));
  }
  void TearDown() override { fs::remove_all(m_dir); }

  SmokeSpec spec(const std::string& cell, std::vector<std::string> checks) {
    fs::create_directories(m_dir / cell);
    return {.python = "/usr/bin/python3",
            .wheel = m_wheel,
            .venv = m_dir / cell / "venv",
            .venv_templates = m_templates,
            .log = m_dir / (cell + ".log"),
            .checks = std::move(checks),
            .path_env = "/usr/bin:/bin",
            .cancel = nullptr};
  }

  std::vector<std::string> templates() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(m_dir / "venvs"))
      names.push_back(entry.path().filename());
    return names;
  }

  fs::path m_dir;
  fs::path m_wheel;
  fs::path m_templates = test::shared_venv_cache();
};

// Cells smoke-testing at once on one interpreter: each gets its own venv with pip and the wheel,
// copied from the one template they raced to make; no staging folder is left behind.
TEST_F(SmokeTest, CellsAtOnceShareOneTemplateAndEachGetsItsOwnVenv) {
  m_templates = m_dir / "venvs";  // none made yet
  const std::vector<std::string> checks = {"import demo, pip; assert demo.VALUE == 7"};
  Status first, second;
  std::thread other([&] { second = run_smoke_test(spec("b", checks)); });
  first = run_smoke_test(spec("a", checks));
  other.join();
  ASSERT_TRUE(first) << first.error().describe();
  ASSERT_TRUE(second) << second.error().describe();
  const auto names = templates();
  ASSERT_EQ(names.size(), 1U) << ::testing::PrintToString(names);
  // Named after the interpreter python3 resolves to (python3.11), whichever name a cell used.
  EXPECT_TRUE(names[0].starts_with(fs::canonical("/usr/bin/python3").filename().string() + "-")) << names[0];
  for (const std::string cell : {"a", "b"}) {
    EXPECT_TRUE(fs::is_directory(m_dir / cell / "venv" / "lib")) << cell;
    const auto log = platform::read_file(m_dir / (cell + ".log"));
    ASSERT_TRUE(log);
    EXPECT_NE(log->find("== smoke: venv (a copy of " + (m_dir / "venvs" / names[0]).string()),
              std::string::npos)
        << *log;
    EXPECT_NE(log->find("== smoke: check 1"), std::string::npos) << *log;
  }
  // A later cell copies the same template; whether a cell made it or not, the logs (hashed into
  // provenance) read the same.
  ASSERT_TRUE(run_smoke_test(spec("c", checks)));
  EXPECT_EQ(templates(), names);
  const auto log_a = platform::read_file(m_dir / "a.log");
  const auto log_c = platform::read_file(m_dir / "c.log");
  ASSERT_TRUE(log_a && log_c);
  EXPECT_EQ(*log_a, *log_c);
  // The wheel went into the cells' venvs, never into the template.
  const auto in_template = relforge::test::run_shell(
      relforge::test::shell_quote((m_dir / "venvs" / names[0] / "bin/python").string()) +
      " -c 'import demo'");
  EXPECT_NE(in_template.exit_code, 0);
}

TEST_F(SmokeTest, AFailingCheckFailsNamingItAndAMissingInterpreterIsAnIoError) {
  const auto failed = run_smoke_test(spec("a", {"import demo; assert demo.VALUE == 8, 'not eight'"}));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().category(), ErrorCategory::integrity);
  EXPECT_NE(failed.error().describe().find("check 1"), std::string::npos) << failed.error().describe();
  EXPECT_NE(failed.error().describe().find("not eight"), std::string::npos) << failed.error().describe();

  auto missing = spec("b", {});
  missing.python = m_dir / "no-such-python";
  const auto none = run_smoke_test(missing);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().category(), ErrorCategory::io);
  EXPECT_NE(none.error().describe().find("no-such-python"), std::string::npos) << none.error().describe();
}

}  // namespace
}  // namespace relforge::builders
