#include "ci_relay/query.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "ci_relay/attribution.hpp"
#include "ci_relay/cells.hpp"
#include "core/text.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

constexpr std::int64_t k_week = 7 * 24 * 3600;

BreakageView read_breakage(const platform::Statement& stmt) {
  BreakageView b;
  b.id = stmt.column_int(0);
  b.repo = stmt.column_text(1);
  b.workflow = stmt.column_text(2);
  b.job = stmt.column_text(3);
  b.state = stmt.column_text(4);
  b.last_good_sha = stmt.column_text(5);
  b.first_bad_sha = stmt.column_text(6);
  b.suspects = stmt.column_int(7);
  b.culprit_sha = stmt.column_optional_text(8);
  b.fixed_sha = stmt.column_optional_text(9);
  b.opened_at = stmt.column_int(10);
  if (!stmt.is_null(11)) b.closed_at = stmt.column_int(11);
  if (!stmt.is_null(12)) b.detection_latency_s = stmt.column_int(12);
  return b;
}

constexpr const char* k_breakage_columns =
    "SELECT id, repo, workflow, job, state, last_good_sha, first_bad_sha, suspects, culprit_sha, fixed_sha, "
    "opened_at, closed_at, detection_latency_s FROM breakages ";

}  // namespace

Result<std::vector<BreakageView>> list_breakages(platform::Database& db, const BreakageFilter& filter) {
  std::string sql = std::string(k_breakage_columns) + "WHERE state != 'retracted'";
  if (filter.open_only == OpenOnly::yes) sql += " AND state = 'open'";
  if (!filter.repo.empty()) sql += " AND lower(repo) = lower(?1)";
  sql += " ORDER BY id DESC";
  auto stmt = db.prepare(sql);
  if (!stmt) return tl::unexpected(stmt.error());
  if (!filter.repo.empty()) stmt->bind(1, filter.repo);
  std::vector<BreakageView> out;
  for (;;) {
    auto row = stmt->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    out.push_back(read_breakage(*stmt));
  }
  return out;
}

Result<BreakageView> show_breakage(platform::Database& db, std::int64_t id) {
  auto stmt = db.prepare(std::string(k_breakage_columns) + "WHERE id = ?");
  if (!stmt) return tl::unexpected(stmt.error());
  auto row = stmt->bind(1, id).step();
  if (!row) return tl::unexpected(row.error());
  if (!*row) {
    return fail(ErrorCategory::not_found,
                "no breakage #" + std::to_string(id) + "; `relforge relay breakages` lists them");
  }
  BreakageView b = read_breakage(*stmt);
  auto range = db.prepare(
      "SELECT c.seq, c.sha FROM commits c, commits g, commits f WHERE g.sha = ?1 AND f.sha = ?2 "
      "AND c.seq > g.seq AND c.seq <= f.seq ORDER BY c.seq");
  if (!range) return tl::unexpected(range.error());
  range->bind(1, b.last_good_sha).bind(2, b.first_bad_sha);
  std::vector<std::int64_t> seqs;
  for (;;) {
    auto r = range->step();
    if (!r) return tl::unexpected(r.error());
    if (!*r) break;
    seqs.push_back(range->column_int(0));
    b.suspect_shas.push_back(range->column_text(1));
  }
  if (!seqs.empty()) {
    const Finding finding{seqs.front() - 1, seqs.back(), std::nullopt};
    if (auto middle = bisect_midpoint(finding))
      b.bisect_sha = b.suspect_shas[static_cast<std::size_t>(*middle - seqs.front())];
  }
  auto runs =
      db.prepare(std::string("SELECT url, conclusion, ") + k_classification_columns +
                 " FROM jobs WHERE repo = ? AND workflow = ? AND job = ? AND head_sha = ? ORDER BY id");
  if (!runs) return tl::unexpected(runs.error());
  runs->bind(1, b.repo).bind(2, b.workflow).bind(3, b.job).bind(4, b.first_bad_sha);
  for (;;) {
    auto r = runs->step();
    if (!r) return tl::unexpected(r.error());
    if (!*r) break;
    if (!runs->column_text(0).empty()) b.run_urls.push_back(runs->column_text(0));
    const auto conclusion = runs->column_optional_text(1);
    if (conclusion == "failure" || conclusion == "timed_out") {
      if (auto c = read_classification(*runs, 2); c && (!b.classification || !c->rule.empty()))
        b.classification = std::move(c);
    }
  }
  return b;
}

Result<Grid> build_grid(platform::Database& db, const RelayConfig& config, const std::string& repo,
                        int limit) {
  return build_grid(db, config, GridQuery{repo, "", "", 0, limit});
}

Result<Grid> build_grid(platform::Database& db, const RelayConfig& config, const GridQuery& query) {
  const std::string& repo = query.repo;
  Grid grid;
  std::vector<std::string> shas;
  {
    auto stmt = db.prepare(
        "SELECT sha, message, author, committed_at FROM commits ORDER BY seq DESC LIMIT ? OFFSET ?");
    if (!stmt) return tl::unexpected(stmt.error());
    stmt->bind(1, static_cast<std::int64_t>(query.limit)).bind(2, query.offset);
    for (;;) {
      auto r = stmt->step();
      if (!r) return tl::unexpected(r.error());
      if (!*r) break;
      shas.push_back(stmt->column_text(0));
      grid.rows.push_back({stmt->column_text(0),
                           stmt->column_text(1),
                           stmt->column_text(2),
                           stmt->column_int(3),
                           "",
                           {},
                           {}});
    }
  }
  // A grid reads ~100 job rows per commit: decide each distinct repo spelling once (tier, filter)
  // and find columns through one reused key buffer, so a row costs no allocation.
  struct RepoRule {
    std::string text;
    bool shown;
  };
  std::vector<RepoRule> repo_rules;
  auto shown = [&](std::string_view job_repo) {
    for (const auto& r : repo_rules) {
      if (r.text == job_repo) return r.shown;
    }
    const DownstreamRepo* d = config.find(job_repo);
    bool show = d == nullptr || d->tier != Tier::l1;  // L1 results stay off the dashboard
    if (!repo.empty() && core::to_lower(std::string(job_repo)) != core::to_lower(repo)) show = false;
    repo_rules.push_back({std::string(job_repo), show});
    return show;
  };
  struct Column {
    std::vector<std::vector<RunOutcome>> runs;       // per grid row
    std::map<std::size_t, JobClassification> notes;  // grid row → why it failed
    std::vector<std::string> urls;                   // per grid row: the run a click should open
    std::vector<bool> failed_url;                    // per grid row: urls[row] is a failed run's
    GridKey key;
  };
  std::unordered_map<std::string, std::size_t> column_of;
  std::vector<Column> columns;
  std::string key, job_repo;
  auto stmt = db.prepare(std::string("SELECT repo, workflow, job, status, conclusion, ") +
                         k_classification_columns + ", url FROM jobs WHERE head_sha = ? ORDER BY id");
  if (!stmt) return tl::unexpected(stmt.error());
  for (std::size_t index = 0; index < shas.size(); ++index) {
    stmt->reset();
    stmt->bind(1, shas[index]);
    for (;;) {
      auto r = stmt->step();
      if (!r) return tl::unexpected(r.error());
      if (!*r) break;
      job_repo = stmt->column_text(0);
      if (!shown(job_repo)) continue;
      if (!query.workflow.empty() && stmt->column_text(1) != query.workflow) continue;
      if (!query.job.empty() && stmt->column_text(2) != query.job) continue;
      key.assign(job_repo)
          .append(" · ")
          .append(stmt->column_text(1))
          .append(" / ")
          .append(stmt->column_text(2));
      auto [it, added] = column_of.try_emplace(key, columns.size());
      if (added) {
        columns.push_back({std::vector<std::vector<RunOutcome>>(shas.size()),
                           {},
                           std::vector<std::string>(shas.size()),
                           std::vector<bool>(shas.size(), false),
                           {job_repo, stmt->column_text(1), stmt->column_text(2)}});
      }
      Column& column = columns[it->second];
      auto conclusion = stmt->column_optional_text(4);
      const bool failed = conclusion == "failure" || conclusion == "timed_out";
      // The latest run explains the cell, unless an earlier one failed (the failure is the news).
      if (auto url = stmt->column_text(11); !url.empty() && (failed || !column.failed_url[index])) {
        column.urls[index] = std::move(url);
        column.failed_url[index] = failed;
      }
      column.runs[index].push_back({stmt->column_text(3), std::move(conclusion)});
      if (failed) {
        if (auto c = read_classification(*stmt, 5); c && !c->rule.empty())
          column.notes[index] = std::move(*c);
      }
    }
  }
  std::vector<std::pair<std::string, std::size_t>> order(column_of.begin(), column_of.end());
  std::sort(order.begin(), order.end());
  for (const auto& [name, id] : order) {
    grid.columns.push_back(name);
    grid.keys.push_back(columns[id].key);
  }
  for (std::size_t i = 0; i < grid.rows.size(); ++i) {
    auto& row = grid.rows[i];
    row.glyphs.reserve(order.size());
    row.urls.reserve(order.size());
    for (std::size_t c = 0; c < order.size(); ++c) {
      const Column& column = columns[order[c].second];
      row.glyphs += merge_cell(column.runs[i]);  // '~' when the commit has no run of this job
      row.urls.push_back(column.urls[i]);
      if (auto note = column.notes.find(i); note != column.notes.end()) row.classifications[c] = note->second;
    }
  }
  return grid;
}

Result<std::vector<RepoHealth>> repo_health(platform::Database& db, const RelayConfig& config,
                                            std::int64_t now) {
  std::vector<RepoHealth> out;
  auto stmt = db.prepare(
      "SELECT COUNT(*), SUM(conclusion IN ('success','neutral')), SUM(conclusion IN "
      "('failure','timed_out','startup_failure')), "
      "AVG(CASE WHEN started_at IS NOT NULL AND queued_at IS NOT NULL THEN started_at - queued_at END), "
      "AVG(CASE WHEN started_at IS NOT NULL THEN completed_at - started_at END) "
      "FROM jobs WHERE lower(repo) = lower(?1) AND status = 'completed' AND completed_at > ?2 AND "
      "completed_at <= ?3");
  auto daily = db.prepare(
      "SELECT (completed_at - ?2 - 1) / 86400, SUM(conclusion IN ('success','neutral')), SUM(conclusion IN "
      "('failure','timed_out','startup_failure')) FROM jobs WHERE lower(repo) = lower(?1) AND status = "
      "'completed' AND completed_at > ?2 AND completed_at <= ?3 GROUP BY 1");
  auto breakages = db.prepare(
      "SELECT AVG(detection_latency_s), SUM(state = 'open') FROM breakages WHERE lower(repo) = lower(?) AND "
      "state != 'retracted'");
  if (!stmt) return tl::unexpected(stmt.error());
  if (!breakages) return tl::unexpected(breakages.error());
  if (!daily) return tl::unexpected(daily.error());
  for (const auto& d : config.downstream) {
    RepoHealth h;
    h.repo = d.repo;
    h.tier = d.tier;
    stmt->reset();
    if (auto r = stmt->bind(1, d.repo).bind(2, now - k_week).bind(3, now).step(); !r)
      return tl::unexpected(r.error());
    h.completed = stmt->column_int(0);
    const std::int64_t good = stmt->column_int(1), bad = stmt->column_int(2);
    if (good + bad > 0) h.pass_rate = static_cast<double>(good) / static_cast<double>(good + bad);
    if (!stmt->is_null(3)) h.queue_s = stmt->column_double(3);
    if (!stmt->is_null(4)) h.run_s = stmt->column_double(4);
    h.daily_pass_rate.assign(7, std::nullopt);
    daily->reset();
    daily->bind(1, d.repo).bind(2, now - k_week).bind(3, now);
    for (;;) {
      auto r = daily->step();
      if (!r) return tl::unexpected(r.error());
      if (!*r) break;
      const std::int64_t day = daily->column_int(0), ok = daily->column_int(1), ko = daily->column_int(2);
      if (day >= 0 && day < 7 && ok + ko > 0)
        h.daily_pass_rate[static_cast<std::size_t>(day)] =
            static_cast<double>(ok) / static_cast<double>(ok + ko);
    }
    breakages->reset();
    if (auto r = breakages->bind(1, d.repo).step(); !r) return tl::unexpected(r.error());
    if (!breakages->is_null(0)) h.mttd_s = breakages->column_double(0);
    h.open_breakages = breakages->column_int(1);
    // relforge's promotion bars (CRCR names the metrics but no numbers): see docs/relay.md.
    const double need = d.tier == Tier::l4   ? 0.95
                        : d.tier == Tier::l3 ? 0.90
                        : d.tier == Tier::l2 ? 0.80
                                             : 0.0;
    const double max_queue = d.tier == Tier::l4 ? 1800 : d.tier == Tier::l3 ? 3600 : 1e18;
    if (d.tier != Tier::l1) {
      if (!h.pass_rate) {
        h.below_bar = true;
        h.bar = "no completed results in 7 days";
      } else if (*h.pass_rate < need) {
        h.below_bar = true;
        h.bar = "pass rate " + std::to_string(static_cast<int>(*h.pass_rate * 100)) + "% < " +
                std::to_string(static_cast<int>(need * 100)) + "% required at " + tier_name(d.tier);
      } else if (h.queue_s && *h.queue_s > max_queue) {
        h.below_bar = true;
        h.bar = "mean queue time " + std::to_string(static_cast<std::int64_t>(*h.queue_s)) + " s > " +
                std::to_string(static_cast<std::int64_t>(max_queue)) + " s allowed at " + tier_name(d.tier);
      }
    }
    out.push_back(std::move(h));
  }
  return out;
}

json to_json(const BreakageView& b) {
  json out = {{"id", b.id},
              {"repo", b.repo},
              {"workflow", b.workflow},
              {"job", b.job},
              {"state", b.state},
              {"last_good", b.last_good_sha},
              {"first_bad", b.first_bad_sha},
              {"suspects", b.suspects},
              {"culprit", b.culprit_sha ? json(*b.culprit_sha) : json(nullptr)},
              {"fixed_by", b.fixed_sha ? json(*b.fixed_sha) : json(nullptr)},
              {"opened_at", b.opened_at},
              {"closed_at", b.closed_at ? json(*b.closed_at) : json(nullptr)},
              {"detection_latency_s", b.detection_latency_s ? json(*b.detection_latency_s) : json(nullptr)}};
  if (!b.suspect_shas.empty()) out["suspect_commits"] = b.suspect_shas;
  if (b.bisect_sha) out["bisect_next"] = *b.bisect_sha;
  if (!b.run_urls.empty()) out["runs"] = b.run_urls;
  if (b.classification) out["classification"] = to_json(*b.classification);
  return out;
}

json to_json(const Grid& grid) {
  json rows = json::array();
  for (const auto& r : grid.rows) {
    rows.push_back({{"sha", r.sha},
                    {"message", r.message},
                    {"author", r.author},
                    {"committed_at", r.committed_at},
                    {"cells", r.glyphs}});
    if (!r.classifications.empty()) {
      json notes = json::array();
      for (const auto& [column, c] : r.classifications) {
        json note = to_json(c);
        note["column"] = column;
        notes.push_back(std::move(note));
      }
      rows.back()["classifications"] = std::move(notes);
    }
  }
  return {{"columns", grid.columns}, {"rows", rows}};
}

json to_json(const RepoHealth& h) {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json daily = json::array();
  for (const auto& rate : h.daily_pass_rate) daily.push_back(opt(rate));
  return {{"repo", h.repo},
          {"tier", tier_name(h.tier)},
          {"completed_7d", h.completed},
          {"pass_rate_7d", opt(h.pass_rate)},
          {"mean_queue_s", opt(h.queue_s)},
          {"mean_run_s", opt(h.run_s)},
          {"mttd_s", opt(h.mttd_s)},
          {"open_breakages", h.open_breakages},
          {"downgrade", h.below_bar},
          {"reason", h.bar},
          {"daily_pass_rate_7d", daily}};
}

}  // namespace relforge::ci_relay
