// End-to-end: `relay replay` of the bundled scenario, then the inspection commands, then the
// dashboard served by `relay serve` and rendered by headless Chromium (screenshot kept).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/e2e.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::relforge;
using relforge::test::run_shell;
using relforge::test::sha_of;
using relforge::test::shell_quote;
using relforge::test::slurp;
using relforge::test::source_path;

class RelayCli : public ::testing::Test {
protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("relforge-relay-cli-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    source = " --config " + shell_quote(source_path("tests/fixtures/relay/relay.toml").string()) + " --db " +
             shell_quote((dir / "relay.db").string());
    auto replayed =
        relforge("relay replay " + shell_quote(source_path("tests/fixtures/relay/scenario.jsonl").string()) +
                 source + " --json");
    ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
    const auto summary = nlohmann::json::parse(replayed.out);
    ASSERT_EQ(summary["outcomes"]["stored"], 52);
    ASSERT_EQ(summary["normalised"], 52);
    ASSERT_EQ(summary["classified"], 17);  // every failed job with a log in the scenario
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  std::filesystem::path dir;
  std::string source;
};

TEST_F(RelayCli, BreakagesShowBisectGridAndHealth) {
  auto open = relforge("relay breakages --open" + source);
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_NE(open.out.find("v/vision · ci / build  3 suspects (aaaaaaaaaa.."), std::string::npos) << open.out;
  EXPECT_EQ(open.out.find("v/accel"), std::string::npos) << open.out;

  auto all = relforge("relay breakages --json" + source);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto list = nlohmann::json::parse(all.out);
  ASSERT_EQ(list.size(), 2U);
  const auto& accel = list[0]["repo"] == "v/accel" ? list[0] : list[1];
  const auto& vision = list[0]["repo"] == "v/vision" ? list[0] : list[1];
  EXPECT_EQ(accel["culprit"], sha_of(12));
  EXPECT_EQ(accel["fixed_by"], sha_of(20));
  EXPECT_EQ(accel["detection_latency_s"], 900);
  EXPECT_EQ(vision["suspects"], 3);

  const std::string id = std::to_string(vision["id"].get<int>());
  auto shown = relforge("relay show " + id + source);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("suspect:   " + sha_of(7)), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("bisect: test " + sha_of(6)), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("https://github.com/v/vision/actions/runs/1008"), std::string::npos) << shown.out;

  auto bisect = relforge("relay bisect " + id + " --request --json" + source);
  ASSERT_EQ(bisect.exit_code, 0) << bisect.err;
  EXPECT_EQ(nlohmann::json::parse(bisect.out)["test"], sha_of(6));
  auto queued =
      run_shell("sqlite3 " + shell_quote((dir / "relay.db").string()) +
                " \"SELECT COUNT(*) FROM outbox WHERE body LIKE '%relforge-bisect%' AND body LIKE '%" +
                sha_of(6) + "%'\"");
  EXPECT_EQ(queued.out, "1\n");
  const std::string accel_id = std::to_string(accel["id"].get<int>());
  EXPECT_EQ(relforge("relay bisect " + accel_id + source).exit_code, 3);  // culprit already known
  EXPECT_EQ(relforge("relay show 999" + source).exit_code, 4);

  auto grid = relforge("relay grid --repo v/serve --limit 20" + source);
  ASSERT_EQ(grid.exit_code, 0) << grid.err;
  EXPECT_NE(grid.out.find("aaaaaaaaaa  F  commit 15"), std::string::npos) << grid.out;
  EXPECT_NE(grid.out.find("aaaaaaaaaa  O  commit 20"), std::string::npos) << grid.out;

  auto health = relforge("relay health --json" + source);
  ASSERT_EQ(health.exit_code, 0) << health.err;
  const auto repos = nlohmann::json::parse(health.out);
  ASSERT_EQ(repos.size(), 4U);
  EXPECT_EQ(repos[0]["tier"], "L4");
  EXPECT_EQ(repos[0]["mttd_s"], 900.0);
}

TEST_F(RelayCli, JobsShowClassificationsAndThePrCommentIsProduced) {
  auto jobs = relforge("relay jobs --failed --repo v/vision --sha " + sha_of(8) + source);
  ASSERT_EQ(jobs.exit_code, 0) << jobs.err;
  EXPECT_NE(jobs.out.find("v/vision · ci / build  failure  [compile_error] /home/runner/work/vision/src/ops/"
                          "roi_align.cpp:57:22: error: no member named 'data_ptr_unchecked' in 'at::Tensor'"),
            std::string::npos)
      << jobs.out;
  auto json_jobs = relforge("relay jobs --failed --json --limit 100" + source);
  ASSERT_EQ(json_jobs.exit_code, 0) << json_jobs.err;
  const auto list = nlohmann::json::parse(json_jobs.out);
  int classified = 0;
  for (const auto& job : list) classified += job["classification"].is_object() ? 1 : 0;
  EXPECT_EQ(classified, 17);
  EXPECT_EQ(list.size(), 19U);  // plus the v/serve flake and the L1 failure, which had no log

  auto grid = relforge("relay grid --json --repo v/accel --limit 30" + source);
  ASSERT_EQ(grid.exit_code, 0) << grid.err;
  const auto doc = nlohmann::json::parse(grid.out);
  EXPECT_EQ(doc["rows"][30 - 12]["classifications"][0]["rule"], "gtest_failure");

  auto pr = relforge("relay pr 42" + source);
  ASSERT_EQ(pr.exit_code, 0) << pr.err;
  EXPECT_NE(
      pr.out.find("## :white_check_mark: You can merge normally! (1 New Failure, 1 Broken Trunk, 1 Flaky; "
                  "none of them blocks merging)"),
      std::string::npos)
      << pr.out;
  EXPECT_NE(pr.out.find("<b>BROKEN TRUNK</b>"), std::string::npos) << pr.out;
  auto pr_json = relforge("relay pr 42 --json" + source);
  ASSERT_EQ(pr_json.exit_code, 0) << pr_json.err;
  const auto verdicts = nlohmann::json::parse(pr_json.out);
  std::map<std::string, std::string> by_job;
  for (const auto& job : verdicts["jobs"]) by_job[job["job"]] = job["classification"];
  EXPECT_EQ(by_job["v/accel · ci / test"], "BROKEN_TRUNK");
  EXPECT_EQ(by_job["v/serve · nightly / e2e"], "FLAKY");
  EXPECT_EQ(by_job["v/vision · ci / build"], "NEW");
  EXPECT_EQ(relforge("relay pr 41" + source).exit_code, 4);
}

// A mistyped --db made an empty database and every inspection reported all clear.
TEST_F(RelayCli, InspectionCommandsOnAMissingDatabaseFailAndCreateNothing) {
  const auto missing = dir / "typo" / "relay.db";
  const std::string elsewhere = " --config " +
                                shell_quote(source_path("tests/fixtures/relay/relay.toml").string()) +
                                " --db " + shell_quote(missing.string());
  for (const std::string command : {"breakages", "health", "jobs", "grid", "show 1", "bisect 1",
                                    "bisect 1 --request", "pr 42", "dashboard"}) {
    auto answer = relforge("relay " + command + elsewhere);
    EXPECT_EQ(answer.exit_code, 4) << command << ": " << answer.err;
    EXPECT_NE(answer.err.find("no relay database at " + missing.string()), std::string::npos) << answer.err;
    EXPECT_NE(answer.err.find("--db"), std::string::npos) << answer.err;
    EXPECT_EQ(answer.out, "") << command;
  }
  EXPECT_FALSE(std::filesystem::exists(missing.parent_path()));
  // The scenario's database is read as before.
  EXPECT_EQ(relforge("relay health" + source).exit_code, 0);
}

// A job name is whatever a webhook says: ESC, BEL and newlines printed raw could retitle the
// terminal, clear it, or forge a line of the listing.
TEST_F(RelayCli, WebhookTextIsPrintedWithVisibleEscapesNotAsTerminalControls) {
  const std::string evil = "test\x1b]0;pwned\x07\x1b[2J\nb7e3a1c0ff  v/accel · ci / build  success";
  std::string lines;
  int run = 9000;
  for (const auto& [commit, conclusion] :
       std::vector<std::pair<int, std::string>>{{29, "success"}, {30, "failure"}}) {
    ++run;
    const nlohmann::json job = {{"id", run},
                                {"run_id", run},
                                {"run_attempt", 1},
                                {"head_sha", sha_of(commit)},
                                {"name", evil},
                                {"workflow_name", "ci\x1b[31m"},
                                {"status", "completed"},
                                {"conclusion", conclusion},
                                {"html_url", "https://x/\x07"},
                                {"runner_name", "r"}};
    lines +=
        nlohmann::json{
            {"event", "workflow_job"},
            {"delivery_id", "evil-" + std::to_string(run)},
            {"payload",
             {{"action", "completed"}, {"workflow_job", job}, {"repository", {{"full_name", "v/accel"}}}}}}
            .dump() +
        "\n";
  }
  std::ofstream(dir / "evil.jsonl") << lines;
  ASSERT_EQ(relforge("relay replay " + shell_quote((dir / "evil.jsonl").string()) + source).exit_code, 0);
  for (const std::string command : {"jobs", "breakages", "grid --repo v/accel"}) {
    auto answer = relforge("relay " + command + source);
    ASSERT_EQ(answer.exit_code, 0) << command << ": " << answer.err;
    EXPECT_EQ(answer.out.find('\x1b'), std::string::npos) << command << ": " << answer.out;
    EXPECT_EQ(answer.out.find('\x07'), std::string::npos) << command << ": " << answer.out;
    EXPECT_NE(answer.out.find("test\\x1b]0;pwned\\x07\\x1b[2J\\nb7e3a1c0ff"), std::string::npos)
        << command << ": " << answer.out;
    EXPECT_EQ(answer.out.find("\nb7e3a1c0ff"), std::string::npos) << command << ": " << answer.out;
  }
}

TEST_F(RelayCli, ServeWithoutItsSecretFailsWithAnAuthError) {
  auto served = run_shell("env -u RELAY_WEBHOOK_SECRET " + shell_quote(relforge::test::relforge_binary()) +
                          " relay serve --port 0" + source);
  EXPECT_EQ(served.exit_code, 8) << served.err;
  EXPECT_NE(served.err.find("RELAY_WEBHOOK_SECRET"), std::string::npos);
}

TEST_F(RelayCli, DashboardRendersInHeadlessChromiumSlow) {
  const auto chromium = run_shell("command -v chromium || command -v chromium-browser");
  if (chromium.exit_code != 0) GTEST_SKIP() << "chromium is not installed (Debian package `chromium`)";
  const auto port_file = dir / "port";
  auto started = run_shell("RELAY_WEBHOOK_SECRET=x " + shell_quote(relforge::test::relforge_binary()) +
                           " relay serve --port 0 --port-file " + shell_quote(port_file.string()) + source +
                           " >/dev/null 2>&1 & echo $!");
  const int pid = std::stoi(started.out);
  std::string port;
  for (int i = 0; i < 400 && port.empty(); ++i) {
    port = slurp(port_file);
    if (port.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_FALSE(port.empty());
  port.pop_back();
  const auto artifacts =
      std::filesystem::path(relforge::test::relforge_binary()).parent_path() / "test-artifacts";
  std::filesystem::create_directories(artifacts);
  const auto shot = artifacts / "relay-dashboard.png";
  std::filesystem::remove(shot);
  const std::string flags =
      "--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars "
      "--user-data-dir=" +
      shell_quote((dir / "chrome").string());
  const std::string url = "http://127.0.0.1:" + port + "/";
  auto dom = run_shell("timeout 60 " + chromium.out.substr(0, chromium.out.find('\n')) + " " + flags +
                       " --dump-dom " + url);
  auto png = run_shell("timeout 60 " + chromium.out.substr(0, chromium.out.find('\n')) + " " + flags +
                       " --window-size=1400,1000 --screenshot=" + shell_quote(shot.string()) + " " + url);
  ::kill(pid, SIGTERM);
  EXPECT_NE(dom.out.find("Open breakages (1)"), std::string::npos) << dom.err;
  EXPECT_NE(dom.out.find("v/vision"), std::string::npos);
  EXPECT_NE(dom.out.find("3 suspects"), std::string::npos);
  EXPECT_NE(dom.out.find("class=\"c flaky\"><a href=\"https://github.com/v/serve/actions/runs/1015\">F</a>"),
            std::string::npos);
  EXPECT_NE(dom.out.find("<b>compile_error</b> (compile)"), std::string::npos);  // the breakage's rule
  EXPECT_NE(dom.out.find("title=\"gtest_failure: [  FAILED  ] TensorShape.Reshape\""), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(shot)) << png.err;
  EXPECT_GT(std::filesystem::file_size(shot), 1000U);
}

}  // namespace
