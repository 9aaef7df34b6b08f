// End-to-end: what people see while `relforge build` runs. Each cell's log streams live, prefixed
// `[cell] ` when several cells build at once, inside `::group::cell` … `::endgroup::` under GitHub
// Actions; a failing cell's last 30 log lines are printed; a duration runs through the smoke test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

// *-bad prints 40 numbered lines and exits 3; the others print two lines and write a pure wheel.
constexpr const char* k_output_recipe = R"(case "$RELFORGE_CELL" in
*-bad) for i in $(seq 1 40); do echo "line $i"; done; exit 3 ;;
esac
echo "compiling $RELFORGE_CELL"
echo "linking $RELFORGE_CELL"
"$RELFORGE_PYTHON" - <<'PY'
import base64, hashlib, os, zipfile
files = {"demo/__init__.py": "X = 1\n",
         "demo-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
         "demo-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode()},{len(d)}" for p, d in files.items()]
files["demo-1.0.dist-info/RECORD"] = "\n".join(rec + ["demo-1.0.dist-info/RECORD,,"]) + "\n"
with zipfile.ZipFile(os.path.join(os.environ["RELFORGE_OUT"], "demo-1.0-py3-none-any.whl"), "w") as z:
    for p, d in files.items(): z.writestr(p, d)
PY
)";

class BuildOutputTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-e2e-output-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    // The smoke test sleeps 1 s: a duration that ended with the recipe would be shorter.
    std::ofstream(m_dir / "relforge.toml")
        << "[project]\nname = \"demo\"\n[matrix]\nid = \"{python}-{accel}\"\n"
           "[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\nvalues = [\"3.11\"]\n"
           "[[matrix.axis]]\nname = \"accel\"\nvalues = [\n"
           "  { value = \"a\", type = \"cpu\", version = \"\", desired = \"a\" },\n"
           "  { value = \"b\", type = \"cpu\", version = \"\", desired = \"b\" },\n"
           "  { value = \"bad\", type = \"cpu\", version = \"\", desired = \"bad\" },\n]\n"
           "[[matrix.field]]\nname = \"local_version\"\ntemplate = \"{accel.desired}\"\n"
           "[build]\nversion = \"1.0\"\n"
           "[recipe]\ncommand = [\"sh\", \"recipe.sh\"]\ntimeout = 60\n"
           "smoke = [\"import time; time.sleep(1); import demo; assert demo.X == 1\"]\n";
    std::ofstream(m_dir / "recipe.sh") << k_output_recipe;
  }
  void TearDown() override { fs::remove_all(m_dir); }

  RunResult build(const std::string& extra, const std::string& env = "env -u GITHUB_ACTIONS") {
    return run_shell(env + " " + shell_quote(relforge::test::relforge_binary()) + " build --config " +
                     shell_quote((m_dir / "relforge.toml").string()) + " --state-dir " +
                     shell_quote((m_dir / "state").string()) + " " + extra);
  }

  fs::path m_dir;
};

TEST_F(BuildOutputTest, TwoParallelCellsArePrefixedAndTheDurationCoversTheSmokeTestSlow) {
  const auto result = build("--jobs 2 --select '*-a' --select '*-b' --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* cell : {"3.11-a", "3.11-b"}) {
    const std::string id(cell);
    EXPECT_NE(result.err.find("\n[" + id + "] compiling " + id + "\n"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("\n[" + id + "] linking " + id + "\n"), std::string::npos) << result.err;
  }
  // The smoke test's own output (pip) streams too, under the cell's prefix.
  EXPECT_NE(result.err.find("[3.11-a] == smoke"), std::string::npos) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  for (const auto& cell : json["cells"]) {
    EXPECT_EQ(cell["result"], "succeeded");
    EXPECT_GE(cell["duration_ms"].get<long>(), 1000) << cell.dump();
  }
}

TEST_F(BuildOutputTest, OneCellIsNotPrefixed) {
  const auto result = build("--select '*-a'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("\ncompiling 3.11-a\n"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("[3.11-a] compiling"), std::string::npos) << result.err;
}

TEST_F(BuildOutputTest, GithubActionsGetsOneGroupPerCellSlow) {
  const auto result = build("--jobs 2 --select '*-a' --select '*-b'", "GITHUB_ACTIONS=true");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* cell : {"3.11-a", "3.11-b"}) {
    const std::string id(cell);
    const auto open = result.err.find("::group::" + id + "\n");
    ASSERT_NE(open, std::string::npos) << result.err;
    const auto close = result.err.find("::endgroup::\n", open);
    ASSERT_NE(close, std::string::npos) << result.err;
    // The cell's lines are inside its group, unprefixed, and no other group opens before it closes.
    const auto group = result.err.substr(open, close - open);
    EXPECT_NE(group.find("\ncompiling " + id + "\nlinking " + id + "\n"), std::string::npos) << group;
    EXPECT_EQ(group.find("::group::", 1), std::string::npos) << group;
    // The other cell's status lines are not in this group either.
    const std::string other = id == "3.11-a" ? "3.11-b" : "3.11-a";
    EXPECT_EQ(group.find("] " + other + ": "), std::string::npos) << group;
  }
  EXPECT_EQ(result.err.find("] compiling"), std::string::npos) << result.err;
}

TEST_F(BuildOutputTest, AFailingCellPrintsTheLast30LinesOfItsLog) {
  const auto result = build("--select '*-bad'");
  EXPECT_NE(result.exit_code, 0);
  const auto tail = result.out.find("== 3.11-bad: the recipe exited with 3");
  ASSERT_NE(tail, std::string::npos) << result.out;
  const auto shown = result.out.substr(tail);
  EXPECT_EQ(shown.find("   | line 10\n"), std::string::npos) << shown;
  for (int line = 11; line <= 40; ++line)
    EXPECT_NE(shown.find("   | line " + std::to_string(line) + "\n"), std::string::npos) << line << shown;
}

}  // namespace
}  // namespace relforge::test
