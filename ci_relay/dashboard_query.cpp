#include "ci_relay/dashboard_query.hpp"

#include <charconv>

#include "ci_relay/dashboard_format.hpp"
#include "ci_relay/jobs.hpp"
#include "core/text.hpp"
#include "core/time.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

std::optional<std::int64_t> whole_number(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

Status bad_parameter(const std::string& name, const std::string& what) {
  return fail(ErrorCategory::invalid_input, "query parameter `" + name + "` " + what);
}

}  // namespace

Result<bool> query_flag(const std::multimap<std::string, std::string>& query, const std::string& name) {
  const auto it = query.find(name);
  if (it == query.end() || it->second == "0") return false;
  if (it->second == "1") return true;
  return tl::unexpected(bad_parameter(name, "must be 1 or 0").error());
}

Result<DashboardFilter> parse_dashboard_filter(const std::multimap<std::string, std::string>& query) {
  DashboardFilter filter;
  auto value = [&](const char* name) -> std::optional<std::string> {
    const auto it = query.find(name);
    if (it == query.end()) return std::nullopt;
    return it->second;
  };
  filter.repo = value("repo").value_or("");
  filter.workflow = value("workflow").value_or("");
  filter.job = value("job").value_or("");
  const auto hide_green = query_flag(query, "hide_green");
  if (!hide_green) return tl::unexpected(hide_green.error());
  filter.hide_green = *hide_green;
  if (auto text = value("page")) {
    const auto page = whole_number(*text);
    if (!page || *page < 1 || *page > 1000000)
      return tl::unexpected(bad_parameter("page", "must be a whole number from 1").error());
    filter.page = *page;
  }
  if (auto text = value("per_page")) {
    const auto n = whole_number(*text);
    if (!n || *n < 1 || *n > 200)
      return tl::unexpected(bad_parameter("per_page", "must be between 1 and 200").error());
    filter.per_page = static_cast<int>(*n);
  }
  if (auto text = value("refresh")) {
    const auto n = whole_number(*text);
    if (!n || *n < 1 || *n > 3600)
      return tl::unexpected(bad_parameter("refresh", "must be between 1 and 3600 seconds").error());
    filter.refresh_s = static_cast<int>(*n);
  }
  if (auto text = value("now"); text && !text->empty()) {
    auto now = parse_instant(*text, "query parameter `now`");
    if (!now) return tl::unexpected(now.error());
    filter.now = *now;
  }
  return filter;
}

Result<std::int64_t> parse_instant(const std::string& text, const std::string& what) {
  if (auto at = parse_github_time(text)) return *at;
  return fail(
      ErrorCategory::invalid_input,
      what + " must be an RFC 3339 time such as 2025-06-15T21:00:00Z, not `" + text.substr(0, 80) + "`");
}

std::string dashboard_query_string(const DashboardFilter& filter) {
  std::string out;
  auto add = [&](const char* name, const std::string& text) {
    out += out.empty() ? '?' : '&';
    out += name;
    out += '=';
    out += core::percent_encode(text);
  };
  const DashboardFilter defaults;
  if (!filter.repo.empty()) add("repo", filter.repo);
  if (!filter.workflow.empty()) add("workflow", filter.workflow);
  if (!filter.job.empty()) add("job", filter.job);
  if (filter.hide_green) add("hide_green", "1");
  if (filter.page != defaults.page) add("page", std::to_string(filter.page));
  if (filter.per_page != defaults.per_page) add("per_page", std::to_string(filter.per_page));
  if (filter.now) add("now", core::rfc3339_utc(*filter.now));
  if (filter.refresh_s != defaults.refresh_s) add("refresh", std::to_string(filter.refresh_s));
  return out;
}

bool all_green(const GridRow& row) {
  for (const char g : row.glyphs) {
    if (g != 'O' && g != 'S' && g != '~') return false;
  }
  return true;
}

const char* glyph_class(char glyph) {
  switch (glyph) {
    case 'O':
      return "ok";
    case 'F':
      return "flaky";
    case 'X':
      return "fail";
    case 'T':
      return "timeout";
    case 'C':
      return "cancel";
    case 'S':
      return "skip";
    case '?':
      return "pending";
    default:
      return "none";
  }
}

std::int64_t page_count(const DashboardView& view) {
  const std::int64_t per = view.filter.per_page;
  return std::max<std::int64_t>(1, (view.total_commits + per - 1) / per);
}

Result<DashboardView> build_dashboard(platform::Database& db, const RelayConfig& config,
                                      const DashboardFilter& filter, std::int64_t now) {
  DashboardView view;
  view.filter = filter;
  view.now = now;
  auto grid = build_grid(db, config,
                         GridQuery{filter.repo, filter.workflow, filter.job,
                                   (filter.page - 1) * filter.per_page, filter.per_page});
  if (!grid) return tl::unexpected(grid.error());
  view.columns = std::move(grid->columns);
  view.keys = std::move(grid->keys);
  {
    auto count = db.prepare("SELECT COUNT(*) FROM commits");
    if (!count) return tl::unexpected(count.error());
    if (auto r = count->step(); !r) return tl::unexpected(r.error());
    view.total_commits = count->column_int(0);
  }
  auto head_of =
      db.prepare("SELECT number FROM pull_requests WHERE head_sha = ? ORDER BY number DESC LIMIT 1");
  if (!head_of) return tl::unexpected(head_of.error());
  for (auto& row : grid->rows) {
    if (filter.hide_green && all_green(row)) {
      ++view.hidden_green;
      continue;
    }
    const auto named = pull_number_in(row.message);
    DashboardRow shown{std::move(row), named};
    if (!shown.pull_request) {
      head_of->reset();
      auto r = head_of->bind(1, shown.commit.sha).step();
      if (!r) return tl::unexpected(r.error());
      if (*r) shown.pull_request = head_of->column_int(0);
    }
    view.rows.push_back(std::move(shown));
  }
  auto open = list_breakages(db, {OpenOnly::yes, filter.repo});
  if (!open) return tl::unexpected(open.error());
  for (const auto& b : *open) {
    if ((!filter.workflow.empty() && b.workflow != filter.workflow) ||
        (!filter.job.empty() && b.job != filter.job))
      continue;
    auto detail = show_breakage(db, b.id);
    if (!detail) return tl::unexpected(detail.error());
    view.open_breakages.push_back(std::move(*detail));
  }
  auto health = repo_health(db, config, now);
  if (!health) return tl::unexpected(health.error());
  for (auto& h : *health) {
    if (filter.repo.empty() || core::to_lower(h.repo) == core::to_lower(filter.repo))
      view.health.push_back(std::move(h));
  }
  return view;
}

json to_json(const DashboardView& view, const RelayConfig& config) {
  json columns = json::array();
  for (std::size_t c = 0; c < view.keys.size(); ++c) {
    columns.push_back({{"name", view.columns[c]},
                       {"repo", view.keys[c].repo},
                       {"workflow", view.keys[c].workflow},
                       {"job", view.keys[c].job}});
  }
  json rows = json::array();
  for (const auto& r : view.rows) {
    json cells = json::array();
    for (std::size_t c = 0; c < r.commit.glyphs.size(); ++c) {
      const char g = r.commit.glyphs[c];
      json cell = {{"glyph", std::string(1, g)}, {"state", glyph_class(g)}};
      if (auto link = safe_link(r.commit.urls[c])) cell["url"] = *link;
      if (auto note = r.commit.classifications.find(c); note != r.commit.classifications.end())
        cell["classification"] = to_json(note->second);
      cells.push_back(std::move(cell));
    }
    json row = {{"sha", r.commit.sha},
                {"url", commit_url(config, r.commit.sha)},
                {"message", r.commit.message},
                {"author", r.commit.author},
                {"committed_at", r.commit.committed_at},
                {"age", relative_time(r.commit.committed_at, view.now)},
                {"pull_request", nullptr},
                {"cells", std::move(cells)}};
    if (r.pull_request)
      row["pull_request"] = {{"number", *r.pull_request}, {"url", pull_url(config, *r.pull_request)}};
    rows.push_back(std::move(row));
  }
  json breakages = json::array();
  for (const auto& b : view.open_breakages) {
    json item = to_json(b);
    item["age"] = human_duration(view.now - b.opened_at);
    if (b.culprit_sha) item["culprit_url"] = commit_url(config, *b.culprit_sha);
    item["range_url"] = compare_url(config, b.last_good_sha, b.first_bad_sha);
    if (b.detection_latency_s) item["detection_latency"] = human_duration(*b.detection_latency_s);
    breakages.push_back(std::move(item));
  }
  json health = json::array();
  for (const auto& h : view.health) health.push_back(to_json(h));
  const DashboardFilter& f = view.filter;
  return {{"now", core::rfc3339_utc(view.now)},
          {"filter",
           {{"repo", f.repo},
            {"workflow", f.workflow},
            {"job", f.job},
            {"hide_green", f.hide_green},
            {"page", f.page},
            {"per_page", f.per_page}}},
          {"page", {{"page", f.page}, {"pages", page_count(view)}, {"commits", view.total_commits}}},
          {"hidden_green", view.hidden_green},
          {"columns", std::move(columns)},
          {"rows", std::move(rows)},
          {"open_breakages", std::move(breakages)},
          {"health", std::move(health)}};
}

}  // namespace relforge::ci_relay
