// End-to-end: each result a cell can end with has one name, the same in the text summary, in
// `--json` and in the ledger; and a ledger the build cannot read or write fails the run (exit 6,
// saying what could not be recorded and where) instead of leaving a success nothing recorded.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/sqlite.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;
using Results = std::map<std::string, std::string>;  // cell id -> result name

// 3.11-bad exits 3, 3.11-ok writes a pure wheel, 3.11-slow outlives its 2 s timeout; 3.11-rocm7.2
// needs hipcc, which no runner has.
constexpr const char* k_results_recipe = R"(case "$RELFORGE_CELL" in
*-bad) echo 'error: boom' >&2; exit 3 ;;
*-slow) sleep 30 ;;
*-ok) "$RELFORGE_PYTHON" - <<'PY'
import base64, hashlib, os, zipfile
files = {"demo/__init__.py": "X = 1\n",
         "demo-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
         "demo-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode()},{len(d)}" for p, d in files.items()]
files["demo-1.0.dist-info/RECORD"] = "\n".join(rec + ["demo-1.0.dist-info/RECORD,,"]) + "\n"
with zipfile.ZipFile(os.path.join(os.environ["RELFORGE_OUT"], "demo-1.0-py3-none-any.whl"), "w") as z:
    for p, d in files.items(): z.writestr(p, d)
PY
;;
esac
)";

class BuildResultsTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-e2e-results-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    std::ofstream(m_dir / "relforge.toml")
        << "[project]\nname = \"demo\"\n[matrix]\nid = \"{python}-{accel}\"\n"
           "[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\nvalues = [\"3.11\"]\n"
           "[[matrix.axis]]\nname = \"accel\"\nvalues = [\n"
           "  { value = \"bad\", type = \"cpu\", version = \"\", desired = \"cpu\" },\n"
           "  { value = \"ok\", type = \"cpu\", version = \"\", desired = \"cpu\" },\n"
           "  { value = \"slow\", type = \"cpu\", version = \"\", desired = \"cpu\" },\n"
           "  { value = \"rocm7.2\", type = \"rocm\", version = \"7.2\", desired = \"rocm7.2\" },\n]\n"
           "[build]\nversion = \"1.0\"\n"
           "[recipe]\ncommand = [\"sh\", \"recipe.sh\"]\ntimeout = 2\n";
    std::ofstream(m_dir / "recipe.sh") << k_results_recipe;
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path db() const { return m_dir / "state" / "state.db"; }

  RunResult build(const std::string& extra) {
    return relforge("build --jobs 1 --config " + shell_quote((m_dir / "relforge.toml").string()) +
                    " --state-dir " + shell_quote((m_dir / "state").string()) + " " + extra);
  }

  // The `result` column of the text summary: the third column of each cell's row.
  static Results text_results(const std::string& out) {
    Results results;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("3.11-", 0) != 0) continue;
      std::istringstream words(line);
      std::string cell, runner, result;
      words >> cell >> runner >> result;
      results[cell] = result;
    }
    return results;
  }

  static Results json_results(const std::string& out) {
    Results results;
    const auto parsed = nlohmann::json::parse(out);
    for (const auto& cell : parsed["cells"])
      results[cell["cell"].get<std::string>()] = cell["result"].get<std::string>();
    return results;
  }

  // The newest ledger row of each cell.
  Results ledger_results() const {
    Results results;
    auto ledger = platform::Database::open(db());
    EXPECT_TRUE(ledger);
    auto rows = ledger->prepare("SELECT cell, result FROM attempts ORDER BY id");
    EXPECT_TRUE(rows);
    while (true) {
      auto row = rows->step();
      EXPECT_TRUE(row);
      if (!row || !*row) break;
      results[rows->column_text(0)] = rows->column_text(1);
    }
    return results;
  }

  fs::path m_dir;
};

// Runs the build twice, as text and as JSON, and checks both agree with `expected` (and the ledger
// with the results it records).
#define EXPECT_SAME_RESULTS(extra, expected_exit, expected)           \
  do {                                                                \
    const auto text = build(extra);                                   \
    EXPECT_EQ(text.exit_code, expected_exit) << text.out << text.err; \
    EXPECT_EQ(text_results(text.out), expected) << text.out;          \
    const auto json = build(std::string(extra) + " --json");          \
    EXPECT_EQ(json.exit_code, expected_exit) << json.out << json.err; \
    EXPECT_EQ(json_results(json.out), expected) << json.out;          \
  } while (false)

TEST_F(BuildResultsTest, TextJsonAndLedgerNameEveryResultAlikeSlow) {
  // succeeded, failed, timed_out, waiting: text, JSON and the ledger's newest rows.
  const Results built{{"3.11-bad", "failed"},
                      {"3.11-ok", "succeeded"},
                      {"3.11-slow", "timed_out"},
                      {"3.11-rocm7.2", "waiting"}};
  EXPECT_SAME_RESULTS("", 6, built);
  EXPECT_EQ(ledger_results(),
            (Results{{"3.11-bad", "failed"}, {"3.11-ok", "succeeded"}, {"3.11-slow", "timed_out"}}));

  EXPECT_SAME_RESULTS("--cell 3.11-ok --resume", 0, (Results{{"3.11-ok", "up_to_date"}}));
  EXPECT_SAME_RESULTS("--dry-run", 0,
                      (Results{{"3.11-bad", "would_build"},
                               {"3.11-ok", "would_build"},
                               {"3.11-slow", "would_build"},
                               {"3.11-rocm7.2", "waiting"}}));
  EXPECT_SAME_RESULTS("--fail-fast --cell 3.11-bad --cell 3.11-ok", 6,
                      (Results{{"3.11-bad", "failed"}, {"3.11-ok", "not_started"}}));
  EXPECT_EQ(ledger_results()["3.11-bad"], "failed");
}

TEST_F(BuildResultsTest, ALedgerThatIsNotADatabaseFailsTheRunWithExitSix) {
  fs::create_directories(m_dir / "state");
  std::ofstream(db()) << "plain text, not a SQLite database\n";
  const auto result = build("--cell 3.11-bad");
  EXPECT_EQ(result.exit_code, 6) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find(db().string()), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("not a database"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("building on"), std::string::npos) << result.err;  // nothing ran
}

TEST_F(BuildResultsTest, AResultTheLedgerRefusesFailsTheRunAndNothingClaimsSuccessSlow) {
  ASSERT_EQ(build("--cell 3.11-bad").exit_code, 6);  // creates the ledger
  {
    auto ledger = platform::Database::open(db());
    ASSERT_TRUE(ledger);
    ASSERT_TRUE(
        ledger->execute("CREATE TRIGGER refuse BEFORE UPDATE ON attempts"
                        " BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;"));
  }
  const auto result = build("--cell 3.11-ok --json");
  EXPECT_EQ(result.exit_code, 6) << result.out << result.err;
  EXPECT_EQ(result.out, "");
  // The last line of stderr is the JSON error (the progress lines come before it).
  ASSERT_GT(result.err.size(), 2u);
  const auto last = result.err.substr(result.err.rfind('\n', result.err.size() - 2) + 1);
  const auto error = nlohmann::json::parse(last)["error"];
  EXPECT_EQ(error["exit_code"], 6);
  EXPECT_EQ(error["category"], "io");
  EXPECT_NE(result.err.find("3.11-ok: its result (succeeded, " + (m_dir / "state" / "wheels").string() +
                            "/demo-1.0-py3-none-any.whl) could not be recorded in the build ledger " +
                            db().string() + ": "),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("database or disk is full"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("3.11-ok: failed — its result"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("3.11-ok: succeeded"), std::string::npos) << result.err;
  // A later --resume does not take the unrecorded wheel for a success: it builds the cell again.
  {
    auto ledger = platform::Database::open(db());
    ASSERT_TRUE(ledger);
    ASSERT_TRUE(ledger->execute("DROP TRIGGER refuse"));
  }
  const auto again = build("--cell 3.11-ok --resume --json");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json_results(again.out), (Results{{"3.11-ok", "succeeded"}}));
}

TEST_F(BuildResultsTest, ALogsFolderThatCannotBeCreatedFailsTheRunWithExitSix) {
  fs::create_directories(m_dir / "state");
  std::ofstream(m_dir / "state" / "logs") << "a file where the logs folder goes\n";
  const auto result = build("--cell 3.11-bad");
  EXPECT_EQ(result.exit_code, 6) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("cannot create the build's logs folder " + (m_dir / "state" / "logs").string()),
            std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace relforge::test
