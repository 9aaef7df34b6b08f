// `relforge triage ...` end to end: the real binary over fixture logs, JUnit reports and a
// temporary triage database.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

std::string fixture(const std::string& name) {
  return shell_quote(source_path("tests/fixtures/triage/" + name));
}

class TriageCli : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("relforge-triage-e2e-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::string path(const std::string& name) const { return shell_quote((m_dir / name).string()); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(m_dir / name) << text; }
  std::filesystem::path m_dir;
};

TEST_F(TriageCli, ClassifiesLogsAsJson) {
  const auto run =
      relforge("triage classify --json " + fixture("pytest_failure.log") + " " + fixture("runner_lost.log"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto body = nlohmann::json::parse(run.out);
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(body[0]["rule"], "pytest_failure");
  EXPECT_EQ(body[0]["line_num"], 15);
  EXPECT_EQ(body[0]["captures"][0], "test/test_ops.py::TestCommonCPU::test_matmul_cpu_float32");
  EXPECT_EQ(body[0]["context"][0], "+ python -m pytest test/test_ops.py -v --junitxml=test-reports/ops.xml");
  EXPECT_EQ(body[0]["cluster"]["id"].get<std::string>().size(), 32u);
  EXPECT_EQ(body[1]["rule"], "runner_lost");
  EXPECT_EQ(body[1]["flaky"], true);
}

TEST_F(TriageCli, ClassifiesAsText) {
  const auto run = relforge("triage classify " + fixture("compile_error.log"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(
      run.out.find("compile_error [compile] line 7: /opt/work/aten/src/ATen/native/Loss.cpp:321:17: error:"),
      std::string::npos)
      << run.out;
}

TEST_F(TriageCli, InvalidRuleNamesTheRuleAndClassifiesNothing) {
  write("rules.toml", "[[rule]]\nname = 'ok'\npattern = 'x'\n[[rule]]\nname = 'bad_one'\npattern = 'a(b'\n");
  const auto run = relforge("triage classify --rules " + path("rules.toml") + " " + fixture("gha_error.log"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("bad_one"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("missing )"), std::string::npos) << run.err;
}

TEST_F(TriageCli, CustomRulesFileOrderIsPriority) {
  write(
      "rules.toml",
      "[[rule]]\nname = 'late_wins'\npattern = 'Unable to (\\w+)'\n[[rule]]\nname = 'any'\npattern = '.'\n");
  const auto run = relforge("triage classify --json --rules " + path("rules.toml") + " " +
                            fixture("artifact_error_download.log"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto body = nlohmann::json::parse(run.out);
  EXPECT_EQ(body[0]["rule"], "late_wins");
  EXPECT_EQ(body[0]["captures"][0], "download");
}

TEST_F(TriageCli, BinaryLogIsAClearError) {
  std::ofstream(m_dir / "core", std::ios::binary) << std::string(
      "\x7f"
      "ELF\0\0\0\x01",
      8);
  const auto run = relforge("triage classify --json " + path("core"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty());
  EXPECT_NE(run.err.find("looks binary"), std::string::npos) << run.err;
}

TEST_F(TriageCli, RecordThenClusterAcrossRepositories) {
  write("a.log", "+ ./run\n##[error]Timeout after 1234 ms at 0x7ffe12345678\n");
  write("b.log", "+ ./run\n##[error]Timeout after 99 ms at 0xdeadbeef00\n");
  const std::string db = " --db " + path("t.db");
  ASSERT_EQ(relforge("triage record" + db + " --repo org/a --job 'test (cuda)' --commit c1 --time 1000000 " +
                     path("a.log"))
                .exit_code,
            0);
  ASSERT_EQ(relforge("triage record" + db + " --repo org/b --job 'test (rocm)' --commit c2 --time 1003600 " +
                     path("b.log"))
                .exit_code,
            0);
  const auto run = relforge("triage clusters --json --now 1007200" + db);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto body = nlohmann::json::parse(run.out);
  ASSERT_EQ(body.size(), 1u);
  EXPECT_EQ(body[0]["failures"]["1d"], 2);
  EXPECT_EQ(body[0]["distinct_7d"]["repos"], 2);
  EXPECT_EQ(body[0]["first_seen_commit"], "c1");
  EXPECT_EQ(body[0]["new_failure"], true);
  EXPECT_EQ(body[0]["algorithm"], "reason-v1");
}

TEST_F(TriageCli, IngestJUnitFindFlakyAndWriteTheDisableList) {
  const std::string db = " --db " + path("t.db");
  // test_conv failed once and passed on rerun in the same job (pytest-rerunfailures), three commits.
  for (int i = 1; i <= 3; ++i) {
    const auto run =
        relforge("triage ingest" + db + " --repo org/r --job 'test (default, 1, 2, linux.2xlarge)'" +
                 " --platform linux --commit c" + std::to_string(i) + " --commit-order " + std::to_string(i) +
                 " --time " + std::to_string(1000000 + i * 600) + " " + fixture("junit_pytest.xml") + " " +
                 fixture("junit_gtest.xml"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("stored 9 test results"), std::string::npos) << run.out;
  }
  const auto flaky = relforge("triage flaky --json --now 1100000" + db);
  ASSERT_EQ(flaky.exit_code, 0) << flaky.err;
  const auto body = nlohmann::json::parse(flaky.out);
  ASSERT_EQ(body.size(), 1u);
  EXPECT_EQ(body[0]["test"], "test_conv_cpu_float32 (test.test_ops.TestCommonCPU)");
  EXPECT_EQ(body[0]["distinct_jobs"], 3);
  EXPECT_EQ(body[0]["evidence"][0]["kind"], "same_job");

  const auto list = relforge("triage disable-list --now 1100000 --out " + path("disabled-tests.json") + db);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("disabled: test_conv_cpu_float32"), std::string::npos) << list.out;
  const auto written = nlohmann::json::parse(slurp(m_dir / "disabled-tests.json"));
  ASSERT_TRUE(written.contains("test_conv_cpu_float32 (test.test_ops.TestCommonCPU)"));
  EXPECT_EQ(written["test_conv_cpu_float32 (test.test_ops.TestCommonCPU)"]["platforms"][0], "linux");
}

TEST_F(TriageCli, JUnitThatIsNotXmlStoresNothing) {
  const std::string db = " --db " + path("t.db");
  const auto run =
      relforge("triage ingest" + db + " --repo r --job j --platform linux --commit c --commit-order 1 " +
               fixture("junit_gtest.xml") + " " + fixture("pytest_failure.log"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("not a valid JUnit XML report"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(m_dir / "t.db"));
}

TEST_F(TriageCli, IngestRefusesEmptyNamesAndImpossibleRunsAndStoresNothing) {
  const std::string db = " --db " + path("t.db");
  const std::string good = " --repo r --job j --platform linux --commit c --commit-order 1";
  for (const std::string& change :
       {std::string(" --job ''"), std::string(" --commit ' '"), std::string(" --repo ''"),
        std::string(" --platform ''"), std::string(" --attempt -5"), std::string(" --attempt 0"),
        std::string(" --commit-order -1")}) {
    SCOPED_TRACE(change);
    const auto run = relforge("triage ingest" + db + good + change + " " + fixture("junit_gtest.xml"));
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_FALSE(std::filesystem::exists(m_dir / "t.db"));
  }
  EXPECT_EQ(relforge("triage ingest" + db + good + " " + fixture("junit_gtest.xml")).exit_code, 0);
}

TEST_F(TriageCli, PrCommentSplitsBrokenTrunkFromNewFailures) {
  // head: two failures. One failed identically on the merge base (broken trunk); the other's log
  // is classified now and differs from the base (new). A third job never ran on the base.
  const std::string jobs = R"json([
    {"name": "test (default, 1, 2, linux.2xlarge)", "commit": "head1", "conclusion": "failure",
     "runner_name": "r1", "rule": "gtest_failure", "line": "[  FAILED  ] Ops.Add", "captures": ["Ops.Add"], "time": 2000},
    {"name": "test (default, 2, 2, linux.2xlarge)", "commit": "base1", "conclusion": "failure",
     "runner_name": "r2", "rule": "gtest_failure", "line": "[  FAILED  ] Ops.Add", "captures": ["Ops.Add"], "time": 1000},
    {"name": "build (linux)", "commit": "head1", "conclusion": "failure", "runner_name": "r3", "log": ")json" +
                           source_path("tests/fixtures/triage/compile_error.log").string() + R"json("},
    {"name": "build (linux)", "commit": "base1", "conclusion": "success", "runner_name": "r4", "time": 1000},
    {"name": "test (new)", "commit": "head1", "conclusion": "timed_out", "runner_name": "r5", "time": 2000}
  ])json";
  write("jobs.json", jobs);
  const auto run = relforge("triage pr --json --head head1 --base base1 --jobs " + path("jobs.json"));
  ASSERT_EQ(run.exit_code, 1) << run.err;  // a new failure: exit 1 (docs/exit-codes.md)
  const auto body = nlohmann::json::parse(run.out);
  ASSERT_EQ(body["jobs"].size(), 3u);
  EXPECT_EQ(body["jobs"][0]["classification"], "BROKEN_TRUNK");
  EXPECT_EQ(body["jobs"][1]["classification"], "NEW");
  EXPECT_EQ(body["jobs"][1]["rule"], "compile_error");
  EXPECT_EQ(body["jobs"][2]["classification"], "UNCLASSIFIED");
  const auto markdown = body["markdown"].get<std::string>();
  EXPECT_NE(markdown.find("## :x: 1 New Failure, 1 Unclassified, 1 Broken Trunk\n"), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("(timed out)"), std::string::npos) << markdown;
  const auto text = relforge("triage pr --head head1 --base base1 --jobs " + path("jobs.json"));
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(text.out, markdown);
  // Without new failures the report answers "yes".
  write("green.json", R"json([{"name": "build (linux)", "commit": "head1", "conclusion": "success"}])json");
  const auto green = relforge("triage pr --head head1 --base base1 --jobs " + path("green.json"));
  EXPECT_EQ(green.exit_code, 0) << green.err;
  EXPECT_NE(green.out.find("## :white_check_mark: No Failures\n"), std::string::npos) << green.out;
}

TEST_F(TriageCli, RulesPrintsTheBuiltInRules) {
  const auto run = relforge("triage rules --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto body = nlohmann::json::parse(run.out);
  EXPECT_GE(body.size(), 25u);
  EXPECT_EQ(body.back()["name"], "gha_error");
}

}  // namespace
}  // namespace relforge::test
