#pragma once
// What the dashboard shows, as a value: one filter (the same query parameters drive the page and
// /api/dashboard) and the view built from the store for it. Rendering lives in dashboard.cpp.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ci_relay/query.hpp"

namespace relforge::ci_relay {

// Query parameters: repo, workflow, job, hide_green=1, page (1-based, by commit), per_page,
// now (RFC 3339: health and ages as of that instant), refresh (seconds between page updates).
struct DashboardFilter {
  std::string repo, workflow, job;
  bool hide_green = false;
  std::int64_t page = 1;
  int per_page = 30;
  std::optional<std::int64_t> now;
  int refresh_s = 30;
};

// A yes/no query parameter (`hide_green`, `open`, `failed`): absent or 0 is false, 1 is true, any
// other value is a usage error naming the parameter (a typo must not quietly read as false).
Result<bool> query_flag(const std::multimap<std::string, std::string>& query, const std::string& name);
// Unknown parameters are ignored; a malformed value is a usage error naming the parameter.
Result<DashboardFilter> parse_dashboard_filter(const std::multimap<std::string, std::string>& query);
// An RFC 3339 instant (`--now`, `?now=`) as Unix seconds; `what` names the option in the error.
Result<std::int64_t> parse_instant(const std::string& text, const std::string& what);
// The filter as a query string ("?repo=...&page=2", or "" for the defaults), percent-encoded.
std::string dashboard_query_string(const DashboardFilter& filter);

struct DashboardRow {
  GridRow commit;
  std::optional<std::int64_t> pull_request;  // named by the message, or whose head this commit is
};

struct DashboardView {
  DashboardFilter filter;
  std::int64_t now = 0;
  std::vector<std::string> columns;  // "repo · workflow / job"
  std::vector<GridKey> keys;
  std::vector<DashboardRow> rows;  // newest first; all-green rows dropped under hide_green
  std::int64_t total_commits = 0, hidden_green = 0;
  std::vector<BreakageView> open_breakages;  // with show_breakage's detail
  std::vector<RepoHealth> health;
};

Result<DashboardView> build_dashboard(platform::Database& db, const RelayConfig& config,
                                      const DashboardFilter& filter, std::int64_t now);

std::int64_t page_count(const DashboardView& view);
// A row every cell of which passed, was skipped, or has no job (flaky cells are not green here).
bool all_green(const GridRow& row);
const char* glyph_class(char glyph);

nlohmann::json to_json(const DashboardView& view, const RelayConfig& config);

}  // namespace relforge::ci_relay
