// Server-rendered dashboard (no build step, no scripts) and the Prometheus text exposition.
#include <sstream>

#include "ci_relay/query.hpp"
#include "core/text.hpp"

namespace relforge::ci_relay {
namespace {

// One HTML escaper for the whole project (core/text).
std::string escape(std::string_view text) {
  return core::html_escape(text);
}

std::string label(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
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

std::string short_sha(const std::string& sha) {
  return sha.substr(0, 10);
}

Result<std::int64_t> scalar(platform::Database& db, const std::string& sql) {
  auto stmt = db.prepare(sql);
  if (!stmt) return tl::unexpected(stmt.error());
  if (auto r = stmt->step(); !r) return tl::unexpected(r.error());
  return stmt->column_int(0);
}

}  // namespace

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

Result<std::string> dashboard_html(platform::Database& db, const RelayConfig& config, std::int64_t now) {
  auto grid = build_grid(db, config, "", 50);
  if (!grid) return tl::unexpected(grid.error());
  auto open = list_breakages(db, {OpenOnly::yes, ""});
  if (!open) return tl::unexpected(open.error());
  auto health = repo_health(db, config, now);
  if (!health) return tl::unexpected(health.error());
  std::ostringstream html;
  html << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>relforge relay — "
       << escape(config.upstream)
       << "</title>\n<style>body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}"
          "td,th{border:1px solid #ccc;padding:2px 6px}th.col{writing-mode:vertical-rl;font-weight:normal}"
          ".ok{background:#2da44e;color:#fff}.flaky{background:#bf8700;color:#fff}.fail{background:#cf222e;"
          "color:#fff}"
          ".timeout{background:#8250df;color:#fff}.cancel{background:#6e7781;color:#fff}.skip{background:#"
          "eaeef2}"
          ".pending{background:#ddf4ff}.why{max-width:40em;font-size:12px}.none{color:#bbb}.down{color:#"
          "cf222e;font-weight:bold}code{font-size:"
          "12px}</style>"
          "</head><body>\n<h1>relforge relay: "
       << escape(config.upstream) << "</h1>\n";
  html << "<section id=\"breakages\"><h2>Open breakages (" << open->size() << ")</h2>\n";
  if (open->empty())
    html << "<p>None.</p>\n";
  else {
    html << "<table><tr><th>#</th><th>repository</th><th>job</th><th>culprit / suspect "
            "range</th><th>latency</th><th>classification</th></tr>\n";
    for (const auto& b : *open) {
      auto detail = show_breakage(db, b.id);
      html << "<tr class=\"breakage\"><td>" << b.id << "</td><td>" << escape(b.repo) << "</td><td>"
           << escape(b.workflow + " / " + b.job) << "</td><td>";
      if (b.culprit_sha)
        html << "culprit <code>" << short_sha(*b.culprit_sha) << "</code>";
      else
        html << b.suspects << " suspects (<code>" << short_sha(b.last_good_sha) << "</code>..<code>"
             << short_sha(b.first_bad_sha) << "</code>]";
      if (detail) {
        for (const auto& url : detail->run_urls) html << " <a href=\"" << escape(url) << "\">run</a>";
      }
      html << "</td><td>" << (b.detection_latency_s ? std::to_string(*b.detection_latency_s) + " s" : "")
           << "</td><td class=\"why\">";
      if (detail && detail->classification && !detail->classification->rule.empty()) {
        html << "<b>" << escape(detail->classification->rule) << "</b> ("
             << escape(detail->classification->category) << ")<br><code>"
             << escape(detail->classification->line.substr(0, 200)) << "</code>";
      }
      html << "</td></tr>\n";
    }
    html << "</table>\n";
  }
  html << "</section>\n<section id=\"grid\"><h2>Commits × jobs</h2>\n<table><tr><th>commit</th>";
  for (const auto& c : grid->columns) html << "<th class=\"col\">" << escape(c) << "</th>";
  html << "</tr>\n";
  for (const auto& row : grid->rows) {
    html << "<tr><td><code>" << short_sha(row.sha) << "</code> " << escape(row.message.substr(0, 60))
         << "</td>";
    for (std::size_t c = 0; c < row.glyphs.size(); ++c) {
      const char g = row.glyphs[c];
      const auto note = row.classifications.find(c);
      html << "<td class=\"" << glyph_class(g) << "\"";
      // The cell's tooltip names the rule and the line that explain the failure.
      if (note != row.classifications.end())
        html << " title=\"" << escape(note->second.rule + ": " + note->second.line.substr(0, 300)) << "\"";
      html << ">" << g << (note != row.classifications.end() ? "*" : "") << "</td>";
    }
    html << "</tr>\n";
  }
  html << "</table></section>\n<section id=\"health\"><h2>Repository health (7 days)</h2>\n"
          "<table><tr><th>repository</th><th>tier</th><th>pass rate</th><th>queue s</th><th>run "
          "s</th><th>MTTD s</th><th></th></tr>\n";
  for (const auto& h : *health) {
    auto num = [](const std::optional<double>& v, double scale) {
      return v ? std::to_string(static_cast<std::int64_t>(*v * scale)) : std::string("—");
    };
    html << "<tr><td>" << escape(h.repo) << "</td><td>" << tier_name(h.tier) << "</td><td>"
         << num(h.pass_rate, 100) << (h.pass_rate ? "%" : "") << "</td><td>" << num(h.queue_s, 1)
         << "</td><td>" << num(h.run_s, 1) << "</td><td>" << num(h.mttd_s, 1) << "</td><td"
         << (h.below_bar ? " class=\"down\">downgrade: " + escape(h.bar) : ">") << "</td></tr>\n";
  }
  html << "</table></section>\n</body></html>\n";
  return html.str();
}

}  // namespace relforge::ci_relay
