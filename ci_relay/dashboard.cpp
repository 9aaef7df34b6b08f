// The dashboard page (server-rendered; an inline script refreshes its sections from
// /api/dashboard) and the Prometheus text exposition.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "ci_relay/dashboard_format.hpp"
#include "ci_relay/dashboard_page.hpp"
#include "ci_relay/query.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "platform/digest.hpp"

namespace relforge::ci_relay {
namespace {

// One HTML escaper for the whole project (core/text).
std::string escape(std::string_view text) {
  return core::html_escape(text);
}

// Label values here are event names, states and repository names: ASCII. A byte outside printable
// ASCII (a row stored before the webhook refused such headers) becomes U+FFFD, so the exposition
// stays valid UTF-8 and one line per sample.
std::string label(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\')
      out += {'\\', c};
    else if (c == '\n')
      out += "\\n";
    else if (c < 0x20 || c > 0x7e)
      out += "\xEF\xBF\xBD";
    else
      out += c;
  }
  return out;
}

std::string short_sha(const std::string& sha) {
  return sha.substr(0, 10);
}

Result<std::int64_t> scalar(platform::Database& db, const std::string& sql) {
  auto stmt = db.prepare(sql);
  if (!stmt) return tl::unexpected(stmt.error());
  if (auto r = stmt->step(); !r) return tl::unexpected(r.error());
  return stmt->column_int(0);
}

constexpr const char* k_style =
    "body{font:14px system-ui,sans-serif;margin:1.5em;color:#1f2328}a{color:#0969da}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
    "th.col{writing-mode:vertical-rl;font-weight:normal;max-height:16em;overflow:hidden}"
    "td.c{text-align:center;min-width:1.4em}td.c a{color:inherit;text-decoration:none;display:block}"
    ".ok{background:#2da44e;color:#fff}.flaky{background:#bf8700;color:#fff}"
    ".fail{background:#cf222e;color:#fff}.timeout{background:#8250df;color:#fff}"
    ".cancel{background:#6e7781;color:#fff}.skip{background:#eaeef2}.pending{background:#ddf4ff}"
    ".none{color:#bbb}.why{max-width:40em;font-size:12px}.down{color:#cf222e;font-weight:bold}"
    ".meta{color:#57606a}code{font-size:12px}#legend{list-style:none;padding:0;display:flex;"
    "flex-wrap:wrap;gap:1em}#legend span{display:inline-block;width:1.4em;text-align:center}"
    "#filters{display:flex;flex-wrap:wrap;gap:.8em;align-items:center;margin:1em 0}"
    "#pager{margin:.6em 0}#pager a,#pager span{margin-right:1em}svg.spark{vertical-align:middle}";

// Swaps the sections in place when the API's version changes; never reloads the page.
constexpr const char* k_script =
    "(function(){var root=document.getElementById('dash');"
    "var every=Number(root.getAttribute('data-refresh'))*1000;var api=root.getAttribute('data-api');"
    "var status=document.getElementById('updated');var ids=['breakages','grid','pager','health'];"
    "function tick(){fetch(api,{cache:'no-store',headers:{Accept:'application/json'}})"
    ".then(function(r){if(!r.ok)throw new Error('HTTP '+r.status);return r.json();})"
    ".then(function(doc){if(doc.version!==root.getAttribute('data-version')){"
    "ids.forEach(function(id){document.getElementById(id).innerHTML=doc.html[id];});"
    "root.setAttribute('data-version',doc.version);"
    "root.setAttribute('data-updates',String(Number(root.getAttribute('data-updates'))+1));}"
    "status.textContent='live: as of '+doc.now;})"
    ".catch(function(e){status.textContent='refresh failed ('+e.message+'), retrying';})"
    ".then(function(){setTimeout(tick,every);});}"
    "setTimeout(tick,every);})();";

std::string csp_hash(std::string_view text) {
  // CSP wants standard base64 with padding; the digest helper writes base64url without it.
  std::string out = platform::base64url_nopad(platform::sha256(text));
  for (char& c : out) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (out.size() % 4 != 0) out += '=';
  return "'sha256-" + out + "'";
}

const char* glyph_meaning(char glyph) {
  switch (glyph) {
    case 'O':
      return "passed";
    case 'F':
      return "flaky (failed, then passed on retry)";
    case 'X':
      return "failed";
    case 'T':
      return "timed out";
    case 'C':
      return "cancelled";
    case 'S':
      return "skipped";
    case '?':
      return "queued or running";
    default:
      return "no job on this commit";
  }
}

std::string link(const std::string& url, const std::string& inner_html) {
  auto safe = safe_link(url);
  if (!safe) return inner_html;
  return "<a href=\"" + escape(*safe) + "\">" + inner_html + "</a>";
}

std::string percent(const std::optional<double>& rate) {
  return rate ? std::to_string(static_cast<int>(std::lround(*rate * 100))) + "%" : "—";
}

std::string sparkline(const RepoHealth& h) {
  constexpr int bar = 8, height = 20;
  std::string days;
  for (std::size_t i = 0; i < h.daily_pass_rate.size(); ++i) {
    days += (i ? ", " : "") + percent(h.daily_pass_rate[i]);
  }
  std::ostringstream svg;
  svg << "<svg class=\"spark\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
      << bar * static_cast<int>(h.daily_pass_rate.size()) << "\" height=\"" << height
      << "\" role=\"img\" aria-label=\"" << escape("daily pass rate, oldest first: " + days) << "\"><title>"
      << escape("daily pass rate, oldest first: " + days) << "</title>";
  for (std::size_t i = 0; i < h.daily_pass_rate.size(); ++i) {
    const auto& rate = h.daily_pass_rate[i];
    const int x = static_cast<int>(i) * bar;
    if (!rate) {
      svg << "<rect x=\"" << x << "\" y=\"" << height - 2 << "\" width=\"" << bar - 2
          << "\" height=\"2\" fill=\"#d0d7de\"/>";
      continue;
    }
    const int h_px = std::max(2, static_cast<int>(std::lround(*rate * (height - 2))));
    const char* fill = *rate >= 0.95 ? "#2da44e" : *rate >= 0.8 ? "#bf8700" : "#cf222e";
    svg << "<rect x=\"" << x << "\" y=\"" << height - h_px << "\" width=\"" << bar - 2 << "\" height=\""
        << h_px << "\" fill=\"" << fill << "\"/>";
  }
  svg << "</svg>";
  return svg.str();
}

std::string breakages_fragment(const DashboardView& view, const RelayConfig& config) {
  std::ostringstream html;
  html << "<h2>Open breakages (" << view.open_breakages.size() << ")</h2>\n";
  if (view.open_breakages.empty()) return html.str() + "<p>None.</p>\n";
  html << "<table><tr><th>#</th><th>repository</th><th>job</th><th>culprit / suspect range</th>"
          "<th>open for</th><th>detected after</th><th>classification</th></tr>\n";
  for (const auto& b : view.open_breakages) {
    html << "<tr class=\"breakage\" data-id=\"" << b.id << "\"><td>" << b.id << "</td><td>" << escape(b.repo)
         << "</td><td>" << escape(b.workflow + " / " + b.job) << "</td><td>";
    if (b.culprit_sha) {
      html << "<a class=\"culprit\" href=\"" << escape(commit_url(config, *b.culprit_sha))
           << "\">culprit <code>" << escape(short_sha(*b.culprit_sha)) << "</code></a>";
    } else {
      html << "<a class=\"range\" href=\"" << escape(compare_url(config, b.last_good_sha, b.first_bad_sha))
           << "\">" << b.suspects << " suspects (<code>" << escape(short_sha(b.last_good_sha))
           << "</code>..<code>" << escape(short_sha(b.first_bad_sha)) << "</code>]</a>";
      if (b.bisect_sha)
        html << " · bisect <a href=\"" << escape(commit_url(config, *b.bisect_sha)) << "\"><code>"
             << escape(short_sha(*b.bisect_sha)) << "</code></a>";
    }
    for (const auto& url : b.run_urls) html << " " << link(url, "run");
    html << "</td><td>" << human_duration(view.now - b.opened_at) << "</td><td>"
         << (b.detection_latency_s ? human_duration(*b.detection_latency_s) : std::string("—"))
         << "</td><td class=\"why\">";
    if (b.classification && !b.classification->rule.empty()) {
      html << "<b>" << escape(b.classification->rule) << "</b> (" << escape(b.classification->category)
           << ")<br><code>" << escape(utf8_prefix(b.classification->line, 200)) << "</code>";
    }
    html << "</td></tr>\n";
  }
  return html.str() + "</table>\n";
}

std::string grid_fragment(const DashboardView& view, const RelayConfig& config) {
  std::ostringstream html;
  html << "<h2>Commits × jobs</h2>\n<p class=\"meta\">page " << view.filter.page << " of " << page_count(view)
       << " · " << view.total_commits << " commits";
  if (view.filter.hide_green) html << " · " << view.hidden_green << " all-green hidden on this page";
  html << "</p>\n";
  if (view.rows.empty()) return html.str() + "<p>No commits to show.</p>\n";
  html << "<table><tr><th>commit</th><th>author</th><th>when</th><th>PR</th>";
  for (const auto& c : view.columns)
    html << "<th class=\"col\" title=\"" << escape(c) << "\">" << escape(c) << "</th>";
  html << "</tr>\n";
  for (const auto& row : view.rows) {
    const GridRow& commit = row.commit;
    html << "<tr class=\"commit\" data-sha=\"" << escape(commit.sha) << "\"><td><a class=\"sha\" href=\""
         << escape(commit_url(config, commit.sha)) << "\"><code>" << escape(short_sha(commit.sha))
         << "</code></a> " << escape(utf8_prefix(commit.message, 60)) << "</td><td>" << escape(commit.author)
         << "</td><td><time datetime=\"" << core::rfc3339_utc(commit.committed_at) << "\">"
         << relative_time(commit.committed_at, view.now) << "</time></td><td>";
    if (row.pull_request)
      html << "<a class=\"pr\" href=\"" << escape(pull_url(config, *row.pull_request)) << "\">#"
           << *row.pull_request << "</a>";
    html << "</td>";
    for (std::size_t c = 0; c < commit.glyphs.size(); ++c) {
      const char g = commit.glyphs[c];
      const auto note = commit.classifications.find(c);
      html << "<td class=\"c " << glyph_class(g) << "\"";
      // The cell's tooltip names the rule and the line that explain the failure.
      if (note != commit.classifications.end())
        html << " title=\""
             << escape(note->second.rule + ": " + std::string(utf8_prefix(note->second.line, 300))) << "\"";
      html << ">"
           << link(commit.urls[c], std::string(1, g) + (note != commit.classifications.end() ? "*" : ""))
           << "</td>";
    }
    html << "</tr>\n";
  }
  return html.str() + "</table>\n";
}

std::string pager_fragment(const DashboardView& view) {
  std::ostringstream html;
  const std::int64_t pages = page_count(view);
  DashboardFilter at = view.filter;
  auto href = [&](std::int64_t page) {
    at.page = page;
    const std::string query = dashboard_query_string(at);
    return escape(query.empty() ? "/" : "/" + query);
  };
  if (view.filter.page > 1)
    html << "<a rel=\"prev\" href=\"" << href(view.filter.page - 1) << "\">← newer</a>";
  html << "<span>page " << view.filter.page << " of " << pages << "</span>";
  if (view.filter.page < pages)
    html << "<a rel=\"next\" href=\"" << href(view.filter.page + 1) << "\">older →</a>";
  return html.str();
}

std::string health_fragment(const DashboardView& view) {
  std::ostringstream html;
  html << "<h2>Repository health (7 days to " << core::rfc3339_utc(view.now) << ")</h2>\n"
       << "<table><tr><th>repository</th><th>tier</th><th>pass rate</th><th>by day</th><th>queue</th>"
          "<th>run</th><th>MTTD</th><th>open</th><th></th></tr>\n";
  auto time = [](const std::optional<double>& v) {
    return v ? human_duration(static_cast<std::int64_t>(std::llround(*v))) : std::string("—");
  };
  for (const auto& h : view.health) {
    html << "<tr class=\"repo\"><td>" << escape(h.repo) << "</td><td>" << tier_name(h.tier) << "</td><td>"
         << percent(h.pass_rate) << "</td><td>" << sparkline(h) << "</td><td>" << time(h.queue_s)
         << "</td><td>" << time(h.run_s) << "</td><td>" << time(h.mttd_s) << "</td><td>" << h.open_breakages
         << "</td><td" << (h.below_bar ? " class=\"down\">downgrade: " + escape(h.bar) : ">")
         << "</td></tr>\n";
  }
  return html.str() + "</table>\n";
}

std::string legend() {
  std::string html = "<ul id=\"legend\">";
  for (const char g : std::string("OFXTCS?~")) {
    html += "<li><span class=\"" + std::string(glyph_class(g)) + "\">" + std::string(1, g) + "</span> " +
            glyph_meaning(g) + "</li>";
  }
  return html + "<li><span>*</span> failure classified (hover for the rule and line)</li></ul>\n";
}

std::string filters_form(const DashboardView& view) {
  const DashboardFilter& f = view.filter;
  std::ostringstream html;
  html << "<form id=\"filters\" method=\"get\" action=\"/\">"
       << "<label>repository <input name=\"repo\" list=\"repos\" value=\"" << escape(f.repo) << "\"></label>"
       << "<label>workflow <input name=\"workflow\" list=\"workflows\" value=\"" << escape(f.workflow)
       << "\"></label><label>job <input name=\"job\" list=\"jobs\" value=\"" << escape(f.job) << "\"></label>"
       << "<label><input type=\"checkbox\" name=\"hide_green\" value=\"1\""
       << (f.hide_green ? " checked" : "") << "> hide green</label>";
  const DashboardFilter defaults;
  if (f.now) html << "<input type=\"hidden\" name=\"now\" value=\"" << core::rfc3339_utc(*f.now) << "\">";
  if (f.per_page != defaults.per_page)
    html << "<input type=\"hidden\" name=\"per_page\" value=\"" << f.per_page << "\">";
  if (f.refresh_s != defaults.refresh_s)
    html << "<input type=\"hidden\" name=\"refresh\" value=\"" << f.refresh_s << "\">";
  html << "<button type=\"submit\">apply</button><a href=\"/\">clear</a>";
  std::vector<std::string> repos, workflows, jobs;
  for (const auto& k : view.keys) {
    repos.push_back(k.repo);
    workflows.push_back(k.workflow);
    jobs.push_back(k.job);
  }
  auto list = [&](const char* id, std::vector<std::string>& values) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    html << "<datalist id=\"" << id << "\">";
    for (const auto& v : values) html << "<option value=\"" << escape(v) << "\">";
    html << "</datalist>";
  };
  list("repos", repos);
  list("workflows", workflows);
  list("jobs", jobs);
  html << "</form>\n";
  return html.str();
}

}  // namespace

DashboardFragments render_fragments(const DashboardView& view, const RelayConfig& config) {
  return {breakages_fragment(view, config), grid_fragment(view, config), pager_fragment(view),
          health_fragment(view)};
}

namespace {

std::string version_of(const DashboardFragments& f) {
  platform::Sha256 digest;
  for (const auto* part : {&f.breakages, &f.grid, &f.pager, &f.health}) {
    digest.update(std::to_string(part->size()) + ":");
    digest.update(*part);
  }
  return platform::to_hex(digest.finish()).substr(0, 16);
}

}  // namespace

nlohmann::json dashboard_document(const DashboardView& view, const RelayConfig& config) {
  auto doc = to_json(view, config);
  const DashboardFragments f = render_fragments(view, config);
  doc["html"] = {{"breakages", f.breakages}, {"grid", f.grid}, {"pager", f.pager}, {"health", f.health}};
  doc["version"] = version_of(f);
  return doc;
}

std::string dashboard_csp() {
  return "default-src 'none'; script-src " + csp_hash(k_script) + "; style-src " + csp_hash(k_style) +
         "; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
}

std::string render_dashboard(const DashboardView& view, const RelayConfig& config, DashboardMode mode) {
  const DashboardFragments f = render_fragments(view, config);
  std::ostringstream html;
  html << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width\"><title>relforge relay — "
       << escape(config.upstream) << "</title>\n<style>" << k_style << "</style></head><body>\n"
       << "<main id=\"dash\" data-refresh=\"" << view.filter.refresh_s
       << "\" data-updates=\"0\" data-version=\"" << version_of(f) << "\" data-api=\""
       << escape("/api/dashboard" + dashboard_query_string(view.filter))
       << "\">\n<h1>relforge relay: " << escape(config.upstream)
       << "</h1>\n<p class=\"meta\">as of <time datetime=\"" << core::rfc3339_utc(view.now) << "\">"
       << core::rfc3339_utc(view.now) << "</time> · <span id=\"updated\">"
       << (mode == DashboardMode::live
               ? "live: refreshes every " + std::to_string(view.filter.refresh_s) + " s"
               : std::string("snapshot"))
       << "</span></p>\n"
       << filters_form(view) << legend() << "<section id=\"breakages\">" << f.breakages
       << "</section>\n<section id=\"grid\">" << f.grid << "</section>\n<nav id=\"pager\">" << f.pager
       << "</nav>\n<section id=\"health\">" << f.health << "</section>\n</main>\n";
  if (mode == DashboardMode::live) html << "<script>" << k_script << "</script>\n";
  html << "</body></html>\n";
  return html.str();
}

Result<std::string> dashboard_html(platform::Database& db, const RelayConfig& config, std::int64_t now) {
  auto view = build_dashboard(db, config, DashboardFilter{}, now);
  if (!view) return tl::unexpected(view.error());
  return render_dashboard(*view, config, DashboardMode::snapshot);
}

Result<std::string> prometheus_metrics(platform::Database& db, const RelayConfig& config, std::int64_t now) {
  std::ostringstream out;
  out << "# HELP relforge_relay_deliveries Stored deliveries by event and state.\n"
         "# TYPE relforge_relay_deliveries gauge\n";
  auto stmt =
      db.prepare("SELECT event, state, COUNT(*) FROM deliveries GROUP BY event, state ORDER BY event, state");
  if (!stmt) return tl::unexpected(stmt.error());
  for (;;) {
    auto r = stmt->step();
    if (!r) return tl::unexpected(r.error());
    if (!*r) break;
    out << "relforge_relay_deliveries{event=\"" << label(stmt->column_text(0)) << "\",state=\""
        << label(stmt->column_text(1)) << "\"} " << stmt->column_int(2) << '\n';
  }
  auto dead = scalar(db, "SELECT COUNT(*) FROM dead_letters");
  auto open = scalar(db, "SELECT COUNT(*) FROM breakages WHERE state = 'open'");
  auto outbox = scalar(db, "SELECT COUNT(*) FROM outbox WHERE state = 'pending'");
  auto failed = scalar(db, "SELECT COUNT(*) FROM outbox WHERE state = 'failed'");
  if (!dead || !open || !outbox || !failed) return fail(ErrorCategory::io, "reading relay metrics failed");
  out << "# HELP relforge_relay_dead_letters Malformed deliveries kept for inspection.\n"
         "# TYPE relforge_relay_dead_letters gauge\nrelforge_relay_dead_letters "
      << *dead << "\n# HELP relforge_relay_open_breakages Open downstream breakages.\n"
      << "# TYPE relforge_relay_open_breakages gauge\nrelforge_relay_open_breakages " << *open
      << "\n# HELP relforge_relay_outbox Outbox entries by state.\n# TYPE relforge_relay_outbox gauge\n"
      << "relforge_relay_outbox{state=\"pending\"} " << *outbox
      << "\nrelforge_relay_outbox{state=\"failed\"} " << *failed << '\n';
  auto health = repo_health(db, config, now);
  if (!health) return tl::unexpected(health.error());
  out << "# HELP relforge_relay_pass_rate Downstream pass rate over 7 days.\n# TYPE relforge_relay_pass_rate "
         "gauge\n";
  for (const auto& h : *health) {
    if (h.pass_rate)
      out << "relforge_relay_pass_rate{repo=\"" << label(h.repo) << "\"} " << *h.pass_rate << '\n';
  }
  out << "# HELP relforge_relay_mttd_seconds Mean time to detect a breakage.\n# TYPE "
         "relforge_relay_mttd_seconds gauge\n";
  for (const auto& h : *health) {
    if (h.mttd_s)
      out << "relforge_relay_mttd_seconds{repo=\"" << label(h.repo) << "\"} " << *h.mttd_s << '\n';
  }
  return out.str();
}

}  // namespace relforge::ci_relay
