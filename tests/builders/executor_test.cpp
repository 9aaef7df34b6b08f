#include "builders/executor.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "builders/ledger.hpp"
#include "core/text.hpp"
#include "platform/file_lock.hpp"
#include "platform/fs.hpp"
#include "tests/builders/support.hpp"

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

// A recipe that writes a pure-Python wheel `demo` into $RELFORGE_OUT (stdlib zipfile only).
constexpr const char* k_good_recipe = R"(
set -e
echo "building $RELFORGE_CELL for $RELFORGE_VERSION+$RELFORGE_LOCAL_VERSION"
"$RELFORGE_PYTHON" - <<'PY'
import base64, hashlib, os, zipfile
v = os.environ["RELFORGE_VERSION"]
full = v + "+" + os.environ["RELFORGE_LOCAL_VERSION"]
files = {"demo/__init__.py": f"__version__ = '{full}'\n",
         f"demo-{v}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: demo\nVersion: {v}\n",
         f"demo-{v}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode()},{len(d)}" for p, d in files.items()]
files[f"demo-{v}.dist-info/RECORD"] = "\n".join(rec + [f"demo-{v}.dist-info/RECORD,,"]) + "\n"
with zipfile.ZipFile(os.path.join(os.environ["RELFORGE_OUT"], f"demo-{v}-py3-none-any.whl"), "w") as z:
    for p, d in files.items(): z.writestr(p, d)
PY
)";

// True while the process exists and is not a zombie waiting to be reaped.
bool alive(const fs::path& pid_file) {
  const auto pid = platform::read_file(pid_file);
  if (!pid) return false;
  const auto stat = platform::read_file("/proc/" + std::string(core::trim(*pid)) + "/stat");
  if (!stat) return false;
  const auto close = stat->rfind(')');
  return close != std::string::npos && stat->size() > close + 2 && (*stat)[close + 2] != 'Z';
}

bool wait_for(const fs::path& path) {
  for (int i = 0; i < 2000 && !fs::exists(path); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return fs::exists(path);
}

class ExecutorTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-exec-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  BuildOptions options(const std::string& recipe) {
    EXPECT_TRUE(platform::write_file_atomic(m_dir / "recipe.sh", recipe, platform::Durability::no_fsync));
    BuildOptions options = test::recipe_options(m_dir);
    options.source_key = "commit1";
    options.on_line = [this](const std::string& line) { m_lines.push_back(line); };
    return options;
  }

  fs::path m_dir;
  std::vector<std::string> m_lines;
};

TEST_F(ExecutorTest, AFailingRecipeIsAFailedCellWithItsLogTail) {
  const auto outcomes = run_build(options("echo compiling\necho 'error: boom' >&2\nexit 3\n"));
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  ASSERT_EQ(outcomes->size(), 1u);
  const auto& cell = outcomes->front();
  EXPECT_EQ(cell.result, CellResult::failed);
  EXPECT_EQ(cell.message, "the recipe exited with 3");
  EXPECT_EQ(cell.log_tail, (std::vector<std::string>{"compiling", "error: boom"}));
  EXPECT_TRUE(fs::exists(cell.log));
}

TEST_F(ExecutorTest, NoWheelAndTwoWheelsAreFailures) {
  auto none = run_build(options("true\n"));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->front().message, "the recipe succeeded but produced no wheel in $RELFORGE_OUT");
  auto two = run_build(
      options("touch \"$RELFORGE_OUT/a-1.0-py3-none-any.whl\" \"$RELFORGE_OUT/b-1.0-py3-none-any.whl\"\n"));
  ASSERT_TRUE(two);
  EXPECT_EQ(two->front().result, CellResult::failed);
  EXPECT_NE(two->front().message.find("produced 2 wheels (a-1.0-py3-none-any.whl, b-1.0-py3-none-any.whl)"),
            std::string::npos);
}

TEST_F(ExecutorTest, ACellPastItsTimeoutIsKilled) {
  auto build = options("sleep 30 & wait\n");
  build.config.recipe.timeout = std::chrono::seconds(1);
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes);
  EXPECT_EQ(outcomes->front().result, CellResult::timed_out);
  EXPECT_EQ(outcomes->front().message, "killed after its timeout of 1 s");
}

TEST_F(ExecutorTest, RetryableExitCodesAreRetried) {
  auto build = options("if [ -f ../../marker ]; then exit 4; fi\ntouch ../../marker\nexit 75\n");
  build.config.recipe.retries = 1;
  build.config.recipe.retryable_exit_codes = {75};
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes);
  EXPECT_EQ(outcomes->front().message, "the recipe exited with 4");  // the second attempt ran
}

TEST_F(ExecutorTest, CellsWithoutARunnerWaitAndDryRunBuildsNothing) {
  auto build = options("exit 1\n");
  build.cells = test::cells("\"3.11\", \"3.12\"");
  build.dry_run = DryRun::yes;
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes);
  EXPECT_EQ((*outcomes)[0].result, CellResult::would_build);
  EXPECT_EQ((*outcomes)[1].result, CellResult::waiting);
  EXPECT_EQ((*outcomes)[1].message, "no runner has nvcc 13.0 — available: none");
  EXPECT_EQ((*outcomes)[3].message, "no runner has python3.12 — available: 3.11");
  EXPECT_FALSE(fs::exists(m_dir / "state"));
}

TEST_F(ExecutorTest, CancelKillsTheRunningCellsProcessGroupAndRecordsItInterrupted) {
  auto build = options(
      "echo $$ > \"$MARK/recipe.pid\"\nsleep 30 &\necho $! > \"$MARK/child.tmp\"\n"
      "mv \"$MARK/child.tmp\" \"$MARK/child.pid\"\nwait\n");
  build.config.recipe.env["MARK"] = m_dir.string();
  std::atomic<bool> cancel{false};
  build.cancel = &cancel;
  std::thread ctrl_c([&] {
    wait_for(m_dir / "child.pid");
    cancel = true;
  });
  const auto outcomes = run_build(build);
  ctrl_c.join();
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  const auto& cell = outcomes->front();
  EXPECT_EQ(cell.result, CellResult::interrupted);
  EXPECT_EQ(cell.message, "interrupted: the recipe was stopped and its process group killed");
  EXPECT_FALSE(alive(m_dir / "recipe.pid"));
  EXPECT_FALSE(alive(m_dir / "child.pid"));  // the recipe's own child died with its group
  auto ledger = Ledger::open(m_dir / "state" / "state.db");
  ASSERT_TRUE(ledger);
  const auto rows = ledger->attempts("3.11-cpu");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().result, "interrupted");
  EXPECT_EQ(rows->front().message, cell.message);
}

TEST_F(ExecutorTest, NothingStartsOnceCancelled) {
  auto build = options("touch \"$MARK/ran\"\n");
  build.config.recipe.env["MARK"] = m_dir.string();
  build.cells = test::cells("\"3.11\"");
  std::atomic<bool> cancel{true};
  build.cancel = &cancel;
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes);
  EXPECT_EQ(outcomes->front().result, CellResult::not_started);
  EXPECT_EQ(outcomes->front().message, "not started: the build was interrupted");
  EXPECT_FALSE(fs::exists(m_dir / "ran"));
}

TEST_F(ExecutorTest, AttemptsLeftRunningByAKilledRunAreMarkedInterruptedAtTheNextStart) {
  {
    auto ledger = Ledger::open(m_dir / "state" / "state.db");
    ASSERT_TRUE(ledger);
    ASSERT_TRUE(ledger->begin({"3.11-cpu", "k", "local", "running", 1, 0, "", "", ""}));
  }  // as if `kill -9` ended that run here
  const auto outcomes = run_build(options("exit 1\n"));
  ASSERT_TRUE(outcomes);
  EXPECT_EQ(m_lines.front(), "1 attempt(s) left running by a killed earlier run: marked interrupted");
  auto ledger = Ledger::open(m_dir / "state" / "state.db");
  ASSERT_TRUE(ledger);
  const auto rows = ledger->attempts("3.11-cpu");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].result, "interrupted");
  EXPECT_EQ((*rows)[1].result, "failed");
}

TEST_F(ExecutorTest, ALedgerLockedByAnotherRunIsAConflictAndBuildsNothing) {
  auto build = options("touch \"$MARK/ran\"\n");
  build.config.recipe.env["MARK"] = m_dir.string();
  auto other_run = platform::FileLock::acquire(m_dir / "state" / "state.db.lock");
  ASSERT_TRUE(other_run);
  const auto outcomes = run_build(build);
  ASSERT_FALSE(outcomes);
  EXPECT_EQ(outcomes.error().category(), ErrorCategory::conflict);
  EXPECT_NE(outcomes.error().message().find("the build ledger " + (m_dir / "state" / "state.db").string() +
                                            " is locked by another relforge run"),
            std::string::npos)
      << outcomes.error().message();
  EXPECT_FALSE(fs::exists(m_dir / "ran"));
}

TEST_F(ExecutorTest, CellsForADeclaredRunnerWaitSayingWhyThisMachineCannotBuildThem) {
  auto build = options("exit 1\n");
  build.cells = test::cells("\"3.11\"");
  build.runners.front().toolkits = {{"cuda", "12.6", "/opt/cuda-12.6/bin/nvcc"}};
  Runner gpu;
  gpu.name = "gpu-h100";
  gpu.labels = {"linux.h100.nvidia.gpu"};
  gpu.pythons = {{"3.11", "python3.11"}};
  gpu.toolkits = {{"cuda", "13.0", ""}};
  build.runners.push_back(gpu);
  build.dry_run = DryRun::yes;
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes);
  EXPECT_EQ((*outcomes)[1].result, CellResult::waiting);
  EXPECT_EQ(
      (*outcomes)[1].message,
      "waiting for runner 'gpu-h100' (linux.h100.nvidia.gpu); this machine lacks nvcc 13.0 (it has nvcc "
      "12.6): run `relforge build --cell 3.11-cu130` there");
}

// Builds, repairs and smoke-tests a pure wheel (a venv and pip: a few seconds), then resumes.
TEST_F(ExecutorTest, BuildsRepairsSmokeTestsAndResumesSlow) {
  auto build = options(k_good_recipe);
  build.config.recipe.smoke = {"import demo; assert demo.__version__ == '{version}', demo.__version__"};
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes);
  const auto& cell = outcomes->front();
  ASSERT_EQ(cell.result, CellResult::succeeded) << cell.message << "\n"
                                                << platform::read_file(cell.log).value_or("");
  EXPECT_EQ(fs::path(cell.wheel).filename(), "demo-1.0+cpu-py3-none-linux_x86_64.whl");
  build.resume = Resume::yes;
  const auto again = run_build(build);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->front().result, CellResult::up_to_date);
  build.source_key = "commit2";  // new inputs: built again
  const auto changed = run_build(build);
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->front().result, CellResult::succeeded);
}

}  // namespace
}  // namespace relforge::builders
