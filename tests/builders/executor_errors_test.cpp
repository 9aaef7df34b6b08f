// Real ledger and file system failures during `run_build` (triggers that make SQLite refuse a
// write, files where folders must be, a log turned into a folder): each one is reported, and no
// cell whose result is not in the ledger is called a success. Tests run as root, so permissions
// cannot make these fail; every failure here is one root gets too.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "builders/executor.hpp"
#include "builders/ledger.hpp"
#include "platform/fs.hpp"
#include "platform/sqlite.hpp"
#include "tests/builders/support.hpp"

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

// Writes a pure wheel `demo` into $RELFORGE_OUT (stdlib zipfile only), then runs `after`.
std::string wheel_recipe(const std::string& after = "") {
  return R"(set -e
"$RELFORGE_PYTHON" - <<'PY'
import base64, hashlib, os, zipfile
v = os.environ["RELFORGE_VERSION"]
files = {"demo/__init__.py": "X = 1\n",
         f"demo-{v}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: demo\nVersion: {v}\n",
         f"demo-{v}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode()},{len(d)}" for p, d in files.items()]
files[f"demo-{v}.dist-info/RECORD"] = "\n".join(rec + [f"demo-{v}.dist-info/RECORD,,"]) + "\n"
with zipfile.ZipFile(os.path.join(os.environ["RELFORGE_OUT"], f"demo-{v}-py3-none-any.whl"), "w") as z:
    for p, d in files.items(): z.writestr(p, d)
PY
)" + after;
}

class ExecutorErrorsTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-exec-err-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  BuildOptions options(const std::string& recipe) {
    EXPECT_TRUE(platform::write_file_atomic(m_dir / "recipe.sh", recipe, platform::Durability::no_fsync));
    BuildOptions options = test::recipe_options(m_dir);
    options.config.recipe.env["MARK"] = m_dir.string();
    options.source_key = "commit1";
    options.on_line = [this](const std::string& line) { m_lines.push_back(line); };
    return options;
  }

  fs::path db() const { return m_dir / "state" / "state.db"; }

  // A migrated ledger, then `sql` run on it with SQLite itself (e.g. a trigger refusing writes).
  void ledger_with(const std::string& sql) {
    ASSERT_TRUE(Ledger::open(db()));
    auto raw = platform::Database::open(db());
    ASSERT_TRUE(raw);
    ASSERT_TRUE(raw->execute(sql)) << sql;
  }

  std::string lines() const {
    std::string out;
    for (const auto& line : m_lines) out += line + "\n";
    return out;
  }

  fs::path m_dir;
  std::vector<std::string> m_lines;
};

TEST_F(ExecutorErrorsTest, ALedgerThatRefusesTheStartBuildsNothingAndFailsTheRun) {
  ledger_with(
      "CREATE TRIGGER refuse BEFORE INSERT ON attempts BEGIN SELECT RAISE(ABORT, 'ledger is read-only'); "
      "END;");
  const auto outcomes = run_build(options("touch \"$MARK/ran\"\n"));
  ASSERT_FALSE(outcomes);
  EXPECT_EQ(outcomes.error().category(), ErrorCategory::io);
  const auto message = outcomes.error().describe();
  EXPECT_NE(message.find("3.11-cpu: not built: could not record its start in the build ledger " +
                         db().string() + ": "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("ledger is read-only"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(m_dir / "ran"));
  EXPECT_NE(lines().find("3.11-cpu: failed — not built"), std::string::npos) << lines();
}

// Builds and smoke-tests a wheel (a venv: a few seconds) whose result the ledger then refuses.
TEST_F(ExecutorErrorsTest, ABuiltWheelTheLedgerCannotRecordIsNotASuccessSlow) {
  ledger_with(
      "CREATE TRIGGER refuse BEFORE UPDATE ON attempts BEGIN SELECT RAISE(ABORT, 'disk quota exceeded'); "
      "END;");
  const auto outcomes = run_build(options(wheel_recipe()));
  ASSERT_FALSE(outcomes);
  EXPECT_EQ(outcomes.error().category(), ErrorCategory::io);
  const auto message = outcomes.error().describe();
  EXPECT_NE(
      message.find("3.11-cpu: its result (succeeded, " + (m_dir / "state" / "wheels").string() +
                   "/demo-1.0+cpu-py3-none-linux_x86_64.whl) could not be recorded in the build ledger " +
                   db().string()),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("disk quota exceeded"), std::string::npos) << message;
  EXPECT_NE(message.find("--resume and signing read that ledger"), std::string::npos) << message;
  // The progress line says failed, never succeeded.
  EXPECT_NE(lines().find("3.11-cpu: failed — its result (succeeded"), std::string::npos) << lines();
  EXPECT_EQ(lines().find("3.11-cpu: succeeded"), std::string::npos) << lines();
  // --resume finds no success to skip to.
  auto ledger = Ledger::open(db());
  ASSERT_TRUE(ledger);
  const auto rows = ledger->attempts("3.11-cpu");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_NE(rows->front().result, "succeeded");
}

TEST_F(ExecutorErrorsTest, AFailedLookupOfTheLastSuccessFailsTheRunWithResume) {
  // A damaged ledger: the attempts table lost the columns --resume reads.
  ledger_with(
      "DROP TABLE attempts; CREATE TABLE attempts(id INTEGER PRIMARY KEY, cell TEXT, inputs_key TEXT,"
      " result TEXT);");
  auto build = options("touch \"$MARK/ran\"\n");
  build.resume = Resume::yes;
  const auto outcomes = run_build(build);
  ASSERT_FALSE(outcomes);
  EXPECT_EQ(outcomes.error().category(), ErrorCategory::io);
  EXPECT_NE(outcomes.error().describe().find(
                "3.11-cpu: could not look up its last success in the build ledger " + db().string()),
            std::string::npos)
      << outcomes.error().describe();
  EXPECT_FALSE(fs::exists(m_dir / "ran"));
}

TEST_F(ExecutorErrorsTest, ALedgerThatIsNotADatabaseIsAnIoError) {
  fs::create_directories(m_dir / "state");
  std::ofstream(db()) << "these are not the bytes of a SQLite database, they are plain text\n";
  const auto outcomes = run_build(options("touch \"$MARK/ran\"\n"));
  ASSERT_FALSE(outcomes);
  EXPECT_EQ(outcomes.error().category(), ErrorCategory::io);
  EXPECT_NE(outcomes.error().describe().find(db().string()), std::string::npos)
      << outcomes.error().describe();
  EXPECT_NE(outcomes.error().describe().find("not a database"), std::string::npos)
      << outcomes.error().describe();
  EXPECT_FALSE(fs::exists(m_dir / "ran"));
}

TEST_F(ExecutorErrorsTest, AStateDirThatIsAFileIsAnIoErrorNotALockConflict) {
  std::ofstream(m_dir / "state") << "a file\n";
  const auto outcomes = run_build(options("touch \"$MARK/ran\"\n"));
  ASSERT_FALSE(outcomes);
  EXPECT_EQ(outcomes.error().category(), ErrorCategory::io) << outcomes.error().describe();
  EXPECT_EQ(outcomes.error().describe().find("locked by another"), std::string::npos)
      << outcomes.error().describe();
  EXPECT_NE(outcomes.error().describe().find((m_dir / "state").string()), std::string::npos);
  EXPECT_FALSE(fs::exists(m_dir / "ran"));
}

TEST_F(ExecutorErrorsTest, AFolderTheBuildNeedsThatCannotBeCreatedIsAnIoError) {
  for (const std::string folder : {"logs", "wheels", "work"}) {
    fs::remove_all(m_dir / "state");
    fs::create_directories(m_dir / "state");
    std::ofstream(m_dir / "state" / folder) << "a file where a folder must be\n";
    const auto outcomes = run_build(options("touch \"$MARK/ran\"\n"));
    ASSERT_FALSE(outcomes) << folder;
    EXPECT_EQ(outcomes.error().category(), ErrorCategory::io);
    EXPECT_NE(outcomes.error().message().find("cannot create the build's " + folder + " folder " +
                                              (m_dir / "state" / folder).string() + ": "),
              std::string::npos)
        << outcomes.error().message();
    EXPECT_FALSE(fs::exists(m_dir / "ran"));
  }
}

TEST_F(ExecutorErrorsTest, AnUnreadableOutputFolderIsSaidSoNotNoWheel) {
  const auto outcomes =
      run_build(options("rm -rf \"$RELFORGE_OUT\"\necho not a folder > \"$RELFORGE_OUT\"\n"));
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  EXPECT_EQ(outcomes->front().result, CellResult::failed);
  EXPECT_NE(outcomes->front().message.find("cannot list the recipe's output folder $RELFORGE_OUT"),
            std::string::npos)
      << outcomes->front().message;
}

// The recipe turns its own log into a folder (it is $HOME/../../logs/<cell>.log): writes to it
// fail with EISDIR, as root too.
const std::string k_log_to_folder =
    "rm \"$HOME/../../logs/$RELFORGE_CELL.log\"\nmkdir \"$HOME/../../logs/$RELFORGE_CELL.log\"\n";

TEST_F(ExecutorErrorsTest, ALogTheRepairFailureCannotBeAppendedToIsSaid) {
  const auto outcomes =
      run_build(options("touch \"$RELFORGE_OUT/demo-1.0-py3-none-any.whl\"\n" + k_log_to_folder));
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  const auto& cell = outcomes->front();
  EXPECT_EQ(cell.result, CellResult::failed);
  EXPECT_NE(cell.message.find("repair: "), std::string::npos) << cell.message;
  EXPECT_NE(cell.message.find("; and the log could not be appended to: cannot open " + cell.log),
            std::string::npos)
      << cell.message;
  ASSERT_EQ(cell.log_tail.size(), 1u);
  EXPECT_NE(cell.log_tail.front().find("(the log could not be read: "), std::string::npos);
}

// A smoke test its log does not record fails the cell (the log is hashed into the provenance).
TEST_F(ExecutorErrorsTest, ASmokeTestWhoseOutputCannotBeLoggedFailsTheCellSlow) {
  const auto outcomes = run_build(options(wheel_recipe(k_log_to_folder)));
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  const auto& cell = outcomes->front();
  EXPECT_EQ(cell.result, CellResult::failed) << cell.message;
  EXPECT_NE(cell.message.find("smoke test: venv: recording its output: cannot open " + cell.log),
            std::string::npos)
      << cell.message;
  auto ledger = Ledger::open(db());
  ASSERT_TRUE(ledger);
  const auto rows = ledger->attempts("3.11-cpu");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().result, "failed");
}

TEST_F(ExecutorErrorsTest, AnOldLogThatCannotBeRemovedFailsTheCellBeforeItsRecipeRuns) {
  fs::create_directories(m_dir / "state" / "logs" / "3.11-cpu.log" / "inside");
  const auto outcomes = run_build(options("touch \"$MARK/ran\"\n"));
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  EXPECT_EQ(outcomes->front().result, CellResult::failed);
  EXPECT_NE(outcomes->front().message.find("cannot remove the old log " +
                                           (m_dir / "state" / "logs" / "3.11-cpu.log").string() + ": "),
            std::string::npos)
      << outcomes->front().message;
  EXPECT_FALSE(fs::exists(m_dir / "ran"));
  auto ledger = Ledger::open(db());
  ASSERT_TRUE(ledger);
  const auto rows = ledger->attempts("3.11-cpu");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().result, "failed");
  EXPECT_EQ(rows->front().message, outcomes->front().message);
}

// The first cell's recipe puts a file where the work folders go; the second cell cannot get one.
TEST_F(ExecutorErrorsTest, AWorkFolderThatCannotBeCreatedFailsTheCell) {
  auto build = options("w=$(dirname \"$HOME\")\nrm -rf \"$w\"\necho not a folder > \"$w\"\nexit 1\n");
  build.cells = test::cells("\"3.11\"");
  build.cells.resize(2);  // 3.11-cpu, then 3.11-cu130 (built here: this runner has no toolkit check)
  build.runners.front().toolkits = {{"cuda", "13.0", ""}};
  build.jobs = 1;
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  ASSERT_EQ(outcomes->size(), 2u);
  EXPECT_EQ((*outcomes)[1].result, CellResult::failed);
  EXPECT_NE((*outcomes)[1].message.find((m_dir / "state" / "work").string()), std::string::npos)
      << (*outcomes)[1].message;
  EXPECT_EQ((*outcomes)[1].message.rfind("cannot ", 0), 0u) << (*outcomes)[1].message;
}

TEST_F(ExecutorErrorsTest, InterruptedAttemptsTheLedgerRefusesFailTheRun) {
  ledger_with(
      "CREATE TRIGGER refuse BEFORE UPDATE ON attempts WHEN NEW.result = 'interrupted'"
      " BEGIN SELECT RAISE(ABORT, 'no space left'); END;");
  auto build = options("touch \"$MARK/started\"\nsleep 30 & wait\n");
  std::atomic<bool> cancel{false};
  build.cancel = &cancel;
  std::thread ctrl_c([&] {
    for (int i = 0; i < 2000 && !fs::exists(m_dir / "started"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    cancel = true;
  });
  const auto outcomes = run_build(build);
  ctrl_c.join();
  ASSERT_FALSE(outcomes);
  EXPECT_EQ(outcomes.error().category(), ErrorCategory::io);
  EXPECT_NE(outcomes.error().describe().find(
                "the interrupted attempts could not be recorded in the build ledger " + db().string() + ": "),
            std::string::npos)
      << outcomes.error().describe();
  EXPECT_NE(outcomes.error().describe().find("no space left"), std::string::npos);
}

}  // namespace
}  // namespace relforge::builders
