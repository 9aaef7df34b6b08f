// The dashboard: formatting, the query-parameter filter, the view of the replayed scenario (links,
// paging, filters, health as of a given `now`), the page's CSP and escaping of hostile names.
#include <gtest/gtest.h>

#include <regex>

#include "ci_relay/dashboard_format.hpp"
#include "ci_relay/dashboard_page.hpp"
#include "ci_relay/dashboard_query.hpp"
#include "ci_relay/replay.hpp"
#include "platform/digest.hpp"
#include "relay_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

TEST(DashboardFormat, DurationsReadLikeAPersonWritesThem) {
  EXPECT_EQ(human_duration(0), "0s");
  EXPECT_EQ(human_duration(-5), "0s");
  EXPECT_EQ(human_duration(42), "42s");
  EXPECT_EQ(human_duration(60), "1m");
  EXPECT_EQ(human_duration(192), "3m 12s");
  EXPECT_EQ(human_duration(3600), "1h");
  EXPECT_EQ(human_duration(7500), "2h 5m");
  EXPECT_EQ(human_duration(90061), "1d 1h");
  EXPECT_EQ(relative_time(1000, 1030), "just now");
  EXPECT_EQ(relative_time(1000, 1000 + 5 * 60 + 59), "5m ago");
  EXPECT_EQ(relative_time(1000, 1000 + 3 * 3600 + 1), "3h ago");
  EXPECT_EQ(relative_time(1000, 1000 + 2 * 86400), "2d ago");
  EXPECT_EQ(relative_time(1000 + 600, 1000), "in 10m");
}

TEST(DashboardFormat, LinksAndPullRequestNumbers) {
  RelayConfig config = scenario_config();
  EXPECT_EQ(commit_url(config, "abc"), "https://github.com/up/runtime/commit/abc");
  EXPECT_EQ(pull_url(config, 7), "https://github.com/up/runtime/pull/7");
  config.api_base = "https://ghe.example.com/api/v3/";
  EXPECT_EQ(compare_url(config, "a", "b"), "https://ghe.example.com/up/runtime/compare/a...b");
  EXPECT_EQ(pull_number_in("Fix the build (#123)"), 123);
  EXPECT_EQ(pull_number_in("Fix the build (#123) "), 123);
  EXPECT_EQ(pull_number_in("Fix (#12a)"), std::nullopt);
  EXPECT_EQ(pull_number_in("Fix (#)"), std::nullopt);
  EXPECT_EQ(pull_number_in("commit 7"), std::nullopt);
  EXPECT_EQ(safe_link("https://github.com/x"), "https://github.com/x");
  EXPECT_EQ(safe_link("javascript:alert(1)"), std::nullopt);
  EXPECT_EQ(safe_link("JAVASCRIPT:alert(1)"), std::nullopt);
  EXPECT_EQ(safe_link("data:text/html,<b>"), std::nullopt);
  EXPECT_EQ(safe_link("https://x/\n<b>"), std::nullopt);
  EXPECT_EQ(safe_link(""), std::nullopt);
}

TEST(DashboardFormat, Utf8PrefixNeverCutsACharacterInHalf) {
  EXPECT_EQ(utf8_prefix("abc", 2), "ab");
  EXPECT_EQ(utf8_prefix("abc", 3), "abc");
  EXPECT_EQ(utf8_prefix("abc", 60), "abc");
  EXPECT_EQ(utf8_prefix("", 0), "");
  EXPECT_EQ(utf8_prefix("h\xC3\xA9llo", 2), "h\xC3\xA9");                 // é is one character
  EXPECT_EQ(utf8_prefix("\xE6\x97\xA5\xE6\x9C\xAC", 1), "\xE6\x97\xA5");  // 日本
  EXPECT_EQ(utf8_prefix("a\xF0\x9F\x94\xA5"
                        "b",
                        2),
            "a\xF0\x9F\x94\xA5");  // a🔥b
  EXPECT_EQ(utf8_prefix("a\xF0\x9F\x94\xA5"
                        "b",
                        1),
            "a");
}

TEST(DashboardFilterParse, FlagsAreOneOrZeroAndAnythingElseNamesTheParameter) {
  EXPECT_EQ(query_flag({}, "open"), false);
  EXPECT_EQ(query_flag({{"open", "1"}}, "open"), true);
  EXPECT_EQ(query_flag({{"open", "0"}}, "open"), false);
  for (const std::string value : {"true", "false", "yes", "on", "", "2", " 1"}) {
    auto bad = query_flag({{"failed", value}}, "failed");
    ASSERT_FALSE(bad) << value;
    EXPECT_EQ(bad.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(bad.error().describe().find("`failed`"), std::string::npos) << bad.error().describe();
  }
}

TEST(DashboardFilterParse, DefaultsValuesAndErrorsNamingTheParameter) {
  auto defaults = parse_dashboard_filter({});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->page, 1);
  EXPECT_EQ(defaults->per_page, 30);
  EXPECT_FALSE(defaults->hide_green);
  EXPECT_FALSE(defaults->now.has_value());
  EXPECT_EQ(dashboard_query_string(*defaults), "");

  auto f = parse_dashboard_filter({{"repo", "v/serve"},
                                   {"workflow", "night ly"},
                                   {"job", "e2e"},
                                   {"hide_green", "1"},
                                   {"page", "2"},
                                   {"per_page", "10"},
                                   {"now", "2025-06-15T21:00:00Z"},
                                   {"refresh", "1"},
                                   {"unknown", "ignored"}});
  ASSERT_TRUE(f) << f.error().describe();
  EXPECT_EQ(f->repo, "v/serve");
  EXPECT_TRUE(f->hide_green);
  EXPECT_EQ(f->page, 2);
  EXPECT_EQ(f->per_page, 10);
  EXPECT_EQ(f->now, 1750021200);
  EXPECT_EQ(f->refresh_s, 1);
  EXPECT_EQ(dashboard_query_string(*f),
            "?repo=v%2Fserve&workflow=night%20ly&job=e2e&hide_green=1&page=2&per_page=10&now=2025-06-15T21%"
            "3A00%3A00Z&refresh=1");

  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"page", "0"},
                                                        {"page", "x"},
                                                        {"per_page", "500"},
                                                        {"refresh", "0"},
                                                        {"hide_green", "yes"},
                                                        {"hide_green", "true"},
                                                        {"now", "yesterday"},
                                                        {"now", "2025-13-01T00:00:00Z"}}) {
    auto bad = parse_dashboard_filter({{name, value}});
    ASSERT_FALSE(bad) << name << "=" << value;
    EXPECT_EQ(bad.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(bad.error().describe().find(name), std::string::npos) << bad.error().describe();
  }
}

class DashboardScenario : public ::testing::Test {
protected:
  void SetUp() override { replay_scenario(relay); }
  DashboardView view(const DashboardFilter& filter, std::int64_t now = commit_time(30) + 3600) {
    auto v = build_dashboard(relay->db(), relay->config(), filter, now);
    EXPECT_TRUE(v) << v.error().describe();
    return v ? *v : DashboardView{};
  }
  std::optional<Relay> relay;
};

TEST_F(DashboardScenario, CellsLinkToTheirJobsRowsToTheirCommitsWithAuthorAndAge) {
  const auto v = view({});
  ASSERT_EQ(v.rows.size(), 30U);
  ASSERT_EQ(v.columns.size(), 3U);  // L1 stays off
  EXPECT_EQ(v.total_commits, 30);
  const auto& newest = v.rows.front().commit;
  EXPECT_EQ(newest.sha, sha_of(30));
  const std::string page = render_dashboard(v, relay->config(), DashboardMode::live);
  // Commit 12 is red on v/accel: the cell links to that job's page.
  EXPECT_NE(page.find("<td class=\"c fail\" title=\"gtest_failure: [  FAILED  ] TensorShape.Reshape\"><a "
                      "href=\"https://github.com/v/accel/actions/runs/1012\">X*</a></td>"),
            std::string::npos);
  EXPECT_NE(page.find("<a class=\"sha\" href=\"https://github.com/up/runtime/commit/" + sha_of(30) + "\">"),
            std::string::npos);
  EXPECT_NE(page.find(">" + newest.author + "</td><td><time datetime=\""), std::string::npos);
  EXPECT_NE(page.find(">1h ago</time>"), std::string::npos);  // commit 30, an hour before `now`
  EXPECT_NE(page.find("<ul id=\"legend\">"), std::string::npos);
  EXPECT_NE(page.find("flaky (failed, then passed on retry)"), std::string::npos);
  // The open v/vision breakage: 3 suspects linked as a compare range, its age and latency readable.
  ASSERT_EQ(v.open_breakages.size(), 1U);
  EXPECT_NE(page.find("/up/runtime/compare/" + sha_of(5) + "..." + sha_of(8) + "\">3 suspects"),
            std::string::npos);
  EXPECT_EQ(page.find(" s</td>"), std::string::npos);  // no raw seconds anywhere
  const auto doc = dashboard_document(v, relay->config());
  EXPECT_EQ(doc["rows"][30 - 12]["cells"][0]["url"], "https://github.com/v/accel/actions/runs/1012");
  EXPECT_EQ(doc["rows"][30 - 12]["cells"][0]["state"], "fail");
  EXPECT_EQ(doc["rows"][0]["url"], "https://github.com/up/runtime/commit/" + sha_of(30));
  EXPECT_EQ(doc["open_breakages"][0]["range_url"],
            "https://github.com/up/runtime/compare/" + sha_of(5) + "..." + sha_of(8));
  EXPECT_EQ(doc["now"], "2025-06-15T21:06:40Z");
  EXPECT_EQ(doc["html"]["grid"].get<std::string>().find("<h2>Commits × jobs</h2>"), 0U);
}

TEST_F(DashboardScenario, CulpritLinksToItsCommit) {
  // The v/accel breakage (culprit: commit 12) was fixed by commit 20; show it as it was while open.
  auto closed = view({});
  EXPECT_EQ(dashboard_document(closed, relay->config())["open_breakages"].size(), 1U);
  auto all = list_breakages(relay->db(), {OpenOnly::no, "v/accel"});
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1U);
  ASSERT_TRUE(all->front().culprit_sha.has_value());
  DashboardView with_culprit = closed;
  auto shown = show_breakage(relay->db(), all->front().id);
  ASSERT_TRUE(shown);
  with_culprit.open_breakages = {*shown};
  const std::string html = render_fragments(with_culprit, relay->config()).breakages;
  EXPECT_NE(html.find("<a class=\"culprit\" href=\"https://github.com/up/runtime/commit/" + sha_of(12) +
                      "\">culprit <code>" + sha_of(12).substr(0, 10) + "</code></a>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>15m</td>"), std::string::npos) << html;  // detected 900 s after the commit
}

TEST_F(DashboardScenario, FiltersPagingAndHideGreen) {
  DashboardFilter serve;
  serve.repo = "V/Serve";
  auto v = view(serve);
  ASSERT_EQ(v.columns.size(), 1U);
  EXPECT_EQ(v.keys[0].repo, "v/serve");
  ASSERT_EQ(v.health.size(), 1U);
  EXPECT_TRUE(v.open_breakages.empty());  // the open one is v/vision's

  DashboardFilter job;
  job.job = "build";
  v = view(job);
  ASSERT_EQ(v.columns.size(), 1U);
  EXPECT_EQ(v.keys[0].repo, "v/vision");
  EXPECT_EQ(v.open_breakages.size(), 1U);
  job.job = "test";
  EXPECT_TRUE(view(job).open_breakages.empty());

  DashboardFilter workflow;
  workflow.workflow = "nightly";
  v = view(workflow);
  ASSERT_EQ(v.columns.size(), 1U);
  EXPECT_EQ(v.keys[0].job, "e2e");

  DashboardFilter paged;
  paged.per_page = 12;
  paged.page = 2;
  v = view(paged);
  ASSERT_EQ(v.rows.size(), 12U);
  EXPECT_EQ(v.rows.front().commit.sha, sha_of(18));
  EXPECT_EQ(page_count(v), 3);
  const std::string pager = render_fragments(v, relay->config()).pager;
  EXPECT_NE(pager.find("href=\"/?per_page=12\">← newer</a>"), std::string::npos) << pager;
  EXPECT_NE(pager.find("href=\"/?page=3&amp;per_page=12\">older →</a>"), std::string::npos) << pager;
  paged.page = 3;
  EXPECT_EQ(view(paged).rows.size(), 6U);

  DashboardFilter quiet;
  quiet.hide_green = true;
  v = view(quiet);
  EXPECT_GT(v.hidden_green, 0);
  EXPECT_EQ(static_cast<std::int64_t>(v.rows.size()) + v.hidden_green, 30);
  for (const auto& row : v.rows) EXPECT_FALSE(all_green(row.commit)) << row.commit.glyphs;
}

TEST_F(DashboardScenario, HealthIsMeasuredAgainstTheGivenNowNotTheWallClock) {
  auto then = view({});
  ASSERT_EQ(then.health.size(), 4U);
  EXPECT_TRUE(then.health[0].pass_rate.has_value());
  EXPECT_EQ(then.health[0].bar, "pass rate 70% < 95% required at L4");  // measured, not "no results"
  ASSERT_EQ(then.health[0].daily_pass_rate.size(), 7U);
  EXPECT_TRUE(then.health[0].daily_pass_rate[6].has_value());  // the scenario's day is the last
  EXPECT_FALSE(then.health[0].daily_pass_rate[0].has_value());
  const std::string health = render_fragments(then, relay->config()).health;
  EXPECT_NE(health.find("<svg class=\"spark\""), std::string::npos);
  EXPECT_NE(health.find("<td>15m</td>"), std::string::npos) << health;  // v/accel MTTD, 900 s
  // A month later nothing completed in the week: every tiered repository is flagged.
  auto later = view({}, commit_time(30) + 30 * 86400);
  EXPECT_TRUE(later.health[0].below_bar);
  EXPECT_EQ(later.health[0].bar, "no completed results in 7 days");
  // And before the scenario happened, nothing had completed yet either.
  auto before = view({}, k_t0 - 3600);
  EXPECT_FALSE(before.health[0].pass_rate.has_value());
}

TEST_F(DashboardScenario, ThePolicyAllowsExactlyThePagesOwnScriptAndStyle) {
  const std::string page = render_dashboard(view({}), relay->config(), DashboardMode::live);
  auto inline_hash = [&](const std::string& tag) {
    const auto open = page.find("<" + tag + ">");
    const auto close = page.find("</" + tag + ">", open);
    EXPECT_NE(open, std::string::npos) << tag;
    std::string b64 = platform::base64url_nopad(
        platform::sha256(page.substr(open + tag.size() + 2, close - open - tag.size() - 2)));
    for (char& c : b64) c = c == '-' ? '+' : c == '_' ? '/' : c;
    while (b64.size() % 4) b64 += '=';
    return "'sha256-" + b64 + "'";
  };
  const std::string csp = dashboard_csp();
  EXPECT_NE(csp.find("script-src " + inline_hash("script") + ";"), std::string::npos) << csp;
  EXPECT_NE(csp.find("style-src " + inline_hash("style") + ";"), std::string::npos) << csp;
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(page.find(" style=\""), std::string::npos);   // inline style attributes would be blocked
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);  // no external assets
  const std::string snapshot = render_dashboard(view({}), relay->config(), DashboardMode::snapshot);
  EXPECT_EQ(snapshot.find("<script>"), std::string::npos);
}

TEST(DashboardEscaping, HostileNamesMessagesAndUrlsNeverBecomeMarkup) {
  auto opened = Relay::open(scenario_config(), ":memory:");
  ASSERT_TRUE(opened) << opened.error().describe();
  Relay& relay = *opened;
  nlohmann::json push = nlohmann::json::parse(push_payload(1, 2));
  push["commits"][1]["message"] = "<script>alert(1)</script> (#77)";
  push["commits"][1]["author"]["name"] = "\"><img src=x onerror=alert(2)>";
  push["head_commit"] = push["commits"][1];
  int id = 0;
  auto deliver = [&](const std::string& event, const std::string& body) {
    ASSERT_EQ(relay.intake({event, "h-" + std::to_string(id++), body, commit_time(2)}).outcome,
              IntakeOutcome::stored);
    ASSERT_TRUE(relay.process_pending());
  };
  deliver("push", push.dump());
  nlohmann::json job = nlohmann::json::parse(job_payload("v/accel", "<b>wf</b>", "\"><svg onload=alert(3)>",
                                                         9, 1, sha_of(2), "completed", "failure"));
  job["workflow_job"]["html_url"] = "javascript:alert(4)";
  deliver("workflow_job", job.dump());
  auto v = build_dashboard(relay.db(), relay.config(), {}, commit_time(3));
  ASSERT_TRUE(v) << v.error().describe();
  ASSERT_EQ(v->rows.size(), 2U);
  EXPECT_EQ(v->rows[0].pull_request, 77);
  for (const std::string& html :
       {render_dashboard(*v, relay.config(), DashboardMode::live),
        dashboard_document(*v, relay.config())["html"]["grid"].get<std::string>()}) {
    EXPECT_EQ(html.find("<script>alert"), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_EQ(html.find("<svg onload"), std::string::npos);
    EXPECT_EQ(html.find("<b>wf"), std::string::npos);
    EXPECT_EQ(html.find("javascript:"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(html.find("&quot;&gt;&lt;svg onload=alert(3)&gt;"), std::string::npos);
    EXPECT_NE(html.find("href=\"https://github.com/up/runtime/pull/77\">#77</a>"), std::string::npos);
  }
  // The cell still shows its failure, without a link.
  EXPECT_FALSE(dashboard_document(*v, relay.config())["rows"][0]["cells"][0].contains("url"));
}

// Multi-byte characters at the cut: the page is served as charset=utf-8, so it must stay UTF-8.
TEST(DashboardEscaping, LongMessagesAreCutBetweenCharacters) {
  auto opened = Relay::open(scenario_config(), ":memory:");
  ASSERT_TRUE(opened) << opened.error().describe();
  Relay& relay = *opened;
  nlohmann::json push = nlohmann::json::parse(push_payload(1, 2));
  const std::string message =
      std::string(59, 'a') + "\xC3\xA9t\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC";  // été 日本
  push["commits"][1]["message"] = message;
  push["head_commit"] = push["commits"][1];
  ASSERT_EQ(relay.intake({"push", "m-1", push.dump(), commit_time(2)}).outcome, IntakeOutcome::stored);
  ASSERT_TRUE(relay.process_pending());
  auto v = build_dashboard(relay.db(), relay.config(), {}, commit_time(3));
  ASSERT_TRUE(v) << v.error().describe();
  for (const std::string& html :
       {render_dashboard(*v, relay.config(), DashboardMode::live),
        dashboard_document(*v, relay.config())["html"]["grid"].get<std::string>()}) {
    // The strict serialiser throws on ill-formed UTF-8.
    EXPECT_NO_THROW((void)nlohmann::json(html).dump());
    EXPECT_NE(html.find(std::string(59, 'a') + "\xC3\xA9</td>"), std::string::npos);
  }
}

}  // namespace
}  // namespace relforge::ci_relay
