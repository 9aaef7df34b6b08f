// End-to-end: the bundled relay scenario replayed into a store, the real `relforge relay serve
// --now` over loopback, and its dashboard driven in headless Chromium (DevTools protocol over a
// pipe, from tests/e2e/relay_dashboard_browser.cjs): links, filters, paging, the in-place refresh
// after a new webhook, inert hostile names, and a screenshot per state under
// <build>/test-artifacts/dashboard/.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/e2e.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace {

using nlohmann::json;
using relforge::test::relforge;
using relforge::test::run_shell;
using relforge::test::sha_of;
using relforge::test::shell_quote;
using relforge::test::slurp;
using relforge::test::source_path;

constexpr const char* k_dashboard_secret = "dashboard browser secret";
constexpr const char* k_now = "2025-06-15T21:00:00Z";  // 53 minutes after the scenario's last commit

class RelayDashboardServed : public ::testing::Test {
protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("relforge-dash-browser-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    source = " --config " + shell_quote(source_path("tests/fixtures/relay/relay.toml").string()) + " --db " +
             shell_quote((dir / "relay.db").string());
    auto replayed = relforge(
        "relay replay " + shell_quote(source_path("tests/fixtures/relay/scenario.jsonl").string()) + source);
    ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
    auto started = run_shell(std::string("RELAY_WEBHOOK_SECRET=") + shell_quote(k_dashboard_secret) + " " +
                             shell_quote(relforge::test::relforge_binary()) + " relay serve --port 0 --now " +
                             k_now + " --port-file " + shell_quote((dir / "port").string()) + source + " >" +
                             shell_quote((dir / "log").string()) + " 2>&1 & echo $!");
    pid = std::stoi(started.out);
    for (int i = 0; i < 400 && port.empty(); ++i) {
      port = slurp(dir / "port");
      if (port.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    ASSERT_FALSE(port.empty()) << slurp(dir / "log");
    port.pop_back();
  }
  void TearDown() override {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      run_shell("while kill -0 " + std::to_string(pid) + " 2>/dev/null; do sleep 0.05; done");
    }
    std::filesystem::remove_all(dir);
  }

  std::string source, port;
  std::filesystem::path dir;
  int pid = -1;
};

TEST_F(RelayDashboardServed, LinksFiltersPagingAndLiveRefreshInHeadlessChromiumSlow) {
  const auto found = run_shell("command -v chromium || command -v chromium-browser");
  if (found.exit_code != 0)
    GTEST_SKIP()
        << "chromium is not installed (Debian package `chromium`; scripts/install-deps.sh installs it)";
  const std::string chromium = found.out.substr(0, found.out.find('\n'));
  const auto artifacts =
      std::filesystem::path(relforge::test::relforge_binary()).parent_path() / "test-artifacts" / "dashboard";
  std::filesystem::remove_all(artifacts);
  std::filesystem::create_directories(artifacts);
  const auto driven = run_shell(
      "timeout 180 node " + shell_quote(source_path("tests/e2e/relay_dashboard_browser.cjs").string()) + " " +
      shell_quote(chromium) + " " + shell_quote("http://127.0.0.1:" + port) + " " +
      shell_quote(k_dashboard_secret) + " " + shell_quote(artifacts.string()));
  ASSERT_EQ(driven.exit_code, 0) << driven.err;
  json seen;
  ASSERT_NO_THROW(seen = json::parse(driven.out)) << driven.out << driven.err;
  ASSERT_FALSE(seen.contains("error")) << seen.dump(2);

  // The open breakage (v/vision, three suspects) with its compare link and run links.
  const auto& open = seen["open"];
  ASSERT_EQ(open["breakages"].size(), 1U) << open.dump(2);
  EXPECT_NE(open["breakages"][0].get<std::string>().find("3 suspects"), std::string::npos);
  EXPECT_NE(open["breakages"][0].get<std::string>().find("v/vision"), std::string::npos);
  EXPECT_EQ(open["rangeLinks"][0], "https://github.com/up/runtime/compare/" + sha_of(5) + "..." + sha_of(8));
  ASSERT_FALSE(open["runLinks"].empty());
  EXPECT_EQ(open["runLinks"][0].get<std::string>().rfind("https://github.com/v/vision/actions/runs/", 0), 0U);
  // Every cell with a job links to it; rows link to their commit and read author and age.
  EXPECT_GT(open["cellLinkCount"].get<int>(), 40);
  EXPECT_TRUE(open["badCellLinks"].empty()) << open["badCellLinks"].dump();
  EXPECT_EQ(open["rows"], 30);
  EXPECT_EQ(open["firstSha"], sha_of(30));
  EXPECT_EQ(open["firstCommitLink"], "https://github.com/up/runtime/commit/" + sha_of(30));
  EXPECT_NE(open["firstRowText"].get<std::string>().find("53m ago"), std::string::npos)
      << open["firstRowText"];
  EXPECT_EQ(open["legend"].size(), 9U);
  // Health as of --now, not the wall clock: measured, with a 7-bar sparkline per repository.
  EXPECT_EQ(open["sparklines"], 4);
  EXPECT_EQ(open["sparkBars"], 28);
  EXPECT_EQ(open["healthText"].get<std::string>().find("no completed results"), std::string::npos)
      << open["healthText"];
  EXPECT_NE(open["healthText"].get<std::string>().find("7 days to 2025-06-15T21:00:00Z"), std::string::npos);
  // The stylesheet ran under the page's Content-Security-Policy.
  EXPECT_EQ(open["failBackground"], "rgb(207, 34, 46)");
  // The flaky cell (v/serve) links to its job.
  EXPECT_EQ(open["flakyCells"], 1);
  EXPECT_EQ(open["flakyLinks"][0].get<std::string>().rfind("https://github.com/v/serve/actions/runs/", 0),
            0U);

  // The filter form drives the page and the JSON API with the same parameters.
  const auto& filtered = seen["filtered"];
  EXPECT_NE(filtered["search"].get<std::string>().find("repo=v%2Fvision"), std::string::npos)
      << filtered["search"];
  EXPECT_NE(filtered["search"].get<std::string>().find("hide_green=1"), std::string::npos);
  EXPECT_EQ(filtered["columns"], json::array({"v/vision · ci / build"}));
  EXPECT_EQ(filtered["greenRows"], 0);
  EXPECT_GT(filtered["rows"].get<int>(), 0);
  EXPECT_LT(filtered["rows"].get<int>(), 30);
  EXPECT_EQ(seen["filteredApi"]["filter"]["repo"], "v/vision");
  EXPECT_EQ(seen["filteredApi"]["filter"]["hide_green"], true);
  EXPECT_EQ(seen["filteredApi"]["columns"], filtered["columns"]);
  EXPECT_EQ(seen["filteredApi"]["rows"], filtered["rows"]);

  // Paging by commit.
  EXPECT_EQ(seen["page1"]["rows"], 10);
  EXPECT_EQ(seen["page1"]["firstSha"], sha_of(30));
  EXPECT_EQ(seen["page2"]["firstSha"], sha_of(20));
  EXPECT_NE(seen["page2"]["search"].get<std::string>().find("page=2"), std::string::npos);
  EXPECT_NE(seen["page2"]["pagerText"].get<std::string>().find("page 2 of 3"), std::string::npos);

  // New webhooks while the page is open: the grid updates in place (the page was not reloaded).
  EXPECT_EQ(seen["posted"], json::array({202, 202}));
  EXPECT_EQ(seen["marker"], "kept");
  EXPECT_GE(seen["after"]["updates"].get<int>(), 1);
  EXPECT_EQ(seen["after"]["columns"].size(), seen["before"]["columns"].size() + 2);
  EXPECT_EQ(seen["lintLink"], "https://github.com/v/accel/actions/runs/777");
  // Hostile job and workflow names are text; a javascript: URL is no link.
  EXPECT_FALSE(seen["after"]["pwned"].get<bool>());
  EXPECT_EQ(seen["after"]["injected"], 0);
  EXPECT_EQ(
      seen["hostileCell"]["header"],
      "v/accel · <script>window.__pwned=true</script> / \"><img src=x onerror=\"window.__pwned=true\">");
  EXPECT_EQ(seen["hostileCell"]["links"], 0);
  EXPECT_EQ(seen["hostileCell"]["text"], "O");
  EXPECT_TRUE(seen["problems"].empty()) << seen["problems"].dump(2);

  for (const auto& [state, file] : seen["screenshots"].items()) {
    const std::filesystem::path shot = file.get<std::string>();
    EXPECT_EQ(shot.parent_path(), artifacts) << state;
    ASSERT_TRUE(std::filesystem::exists(shot)) << state;
    EXPECT_GT(std::filesystem::file_size(shot), 5000U) << state;
    EXPECT_EQ(slurp(shot).substr(1, 3), "PNG") << state;
  }
  EXPECT_EQ(seen["screenshots"].size(), 4U);
}

TEST_F(RelayDashboardServed, BadQueryParametersAreRefusedWithTheirName) {
  const std::string url = "http://127.0.0.1:" + port;
  auto page = run_shell("curl -s -w '\\n%{http_code}' " + shell_quote(url + "/?now=yesterday"));
  EXPECT_NE(page.out.find("query parameter `now` must be an RFC 3339 time"), std::string::npos) << page.out;
  EXPECT_NE(page.out.find("\n400"), std::string::npos);
  auto api = run_shell("curl -s -w '\\n%{http_code}' " + shell_quote(url + "/api/dashboard?per_page=0"));
  EXPECT_NE(api.out.find("per_page"), std::string::npos) << api.out;
  EXPECT_NE(api.out.find("\n400"), std::string::npos);
  // ?now= overrides --now per request: a month later nothing completed in the week.
  auto later = run_shell("curl -s " + shell_quote(url + "/api/health?now=2025-07-15T00:00:00Z"));
  EXPECT_NE(later.out.find("no completed results in 7 days"), std::string::npos) << later.out;
  auto pinned = run_shell("curl -s " + shell_quote(url + "/api/health"));
  EXPECT_EQ(pinned.out.find("no completed results in 7 days"), std::string::npos) << pinned.out;
  auto headers = run_shell("curl -s -D - -o /dev/null " + shell_quote(url + "/"));
  EXPECT_NE(headers.out.find("Content-Security-Policy: default-src 'none'; script-src 'sha256-"),
            std::string::npos)
      << headers.out;
}

TEST_F(RelayDashboardServed, JsonApiFiltersTakeTheDashboardParameterNames) {
  const std::string url = "http://127.0.0.1:" + port;
  auto grid = json::parse(run_shell("curl -s " + shell_quote(url + "/api/grid?workflow=nightly")).out);
  EXPECT_EQ(grid["columns"], json::array({"v/serve · nightly / e2e"}));
  grid =
      json::parse(run_shell("curl -s " + shell_quote(url + "/api/grid?repo=V/ACCEL&job=test&limit=5")).out);
  EXPECT_EQ(grid["columns"], json::array({"v/accel · ci / test"}));
  EXPECT_EQ(grid["rows"].size(), 5U);
  auto open = json::parse(run_shell("curl -s " + shell_quote(url + "/api/breakages?open=1&job=build")).out);
  EXPECT_EQ(open.size(), 1U);
  open = json::parse(run_shell("curl -s " + shell_quote(url + "/api/breakages?open=1&job=test")).out);
  EXPECT_TRUE(open.empty());
  auto page = json::parse(
      run_shell("curl -s " + shell_quote(url + "/api/dashboard?repo=v/serve&hide_green=1&per_page=10&page=2"))
          .out);
  EXPECT_EQ(page["filter"]["repo"], "v/serve");
  EXPECT_EQ(page["page"]["pages"], 3);
  ASSERT_EQ(page["rows"].size(), 1U);  // of commits 11..20 only 15 (flaky) is not green on v/serve
  EXPECT_EQ(page["rows"][0]["sha"], sha_of(15));
  EXPECT_EQ(page["rows"][0]["cells"][0]["state"], "flaky");
  EXPECT_EQ(page["hidden_green"], 9);
}

TEST(RelayDashboardCli, SnapshotTakesNowAndFiltersAndRefusesABadNow) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("relforge-dash-cli-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string source = " --config " +
                             shell_quote(source_path("tests/fixtures/relay/relay.toml").string()) + " --db " +
                             shell_quote((dir / "relay.db").string());
  ASSERT_EQ(relforge("relay replay " +
                     shell_quote(source_path("tests/fixtures/relay/scenario.jsonl").string()) + source)
                .exit_code,
            0);
  auto page = relforge("relay dashboard --now 2025-06-15T21:00:00Z --repo v/serve" + source);
  ASSERT_EQ(page.exit_code, 0) << page.err;
  EXPECT_NE(page.out.find("7 days to 2025-06-15T21:00:00Z"), std::string::npos);
  EXPECT_NE(page.out.find("v/serve · nightly / e2e"), std::string::npos);
  EXPECT_EQ(page.out.find("v/accel · ci / test"), std::string::npos);
  EXPECT_EQ(page.out.find("<script>"), std::string::npos);  // a snapshot does not try to refresh
  auto doc =
      relforge("relay dashboard --json --now 2025-06-15T21:00:00Z --hide-green --per-page 10" + source);
  ASSERT_EQ(doc.exit_code, 0) << doc.err;
  const auto parsed = json::parse(doc.out);
  EXPECT_EQ(parsed["now"], "2025-06-15T21:00:00Z");
  EXPECT_EQ(parsed["filter"]["hide_green"], true);
  EXPECT_EQ(parsed["page"]["pages"], 3);
  auto bad = relforge("relay dashboard --now tomorrow" + source);
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("--now must be an RFC 3339 time"), std::string::npos) << bad.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
