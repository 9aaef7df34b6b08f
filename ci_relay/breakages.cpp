// Persists attribution findings: a breakage row keeps its identity (and opened_at) while later
// results narrow its suspect range, so detection latency measures the first moment it was seen.
#include "ci_relay/breakages.hpp"

#include <map>
#include <set>
#include <tuple>

#include "ci_relay/attribution.hpp"
#include "ci_relay/cells.hpp"
#include "platform/sqlite_rows.hpp"

namespace relforge::ci_relay {
namespace {

struct CommitInfo {
  std::string sha;
  std::int64_t time = 0;
};

Result<CommitInfo> commit_at(platform::Database& db, std::int64_t seq) {
  auto stmt = db.prepare("SELECT sha, committed_at FROM commits WHERE seq = ?");
  if (!stmt) return tl::unexpected(stmt.error());
  auto row = platform::first_row<std::string, std::int64_t>(stmt->bind(1, seq));
  if (!row) return tl::unexpected(row.error());
  if (!*row) return fail(ErrorCategory::internal, "no upstream commit at position " + std::to_string(seq));
  return CommitInfo{std::get<0>(**row), std::get<1>(**row)};
}

struct Existing {
  std::int64_t id = 0, last_good = 0, first_bad = 0, opened_at = 0;
  std::optional<std::int64_t> closed_at;
  bool used = false;
};

}  // namespace

Status Attribution::attribute(const JobKey& key, std::int64_t now) {
  const auto& [repo, workflow, job] = key;
  platform::Database& db = m_store.db();
  if (const auto* d = m_store.config().find(repo); d != nullptr && d->tier == Tier::l1) return {};
  std::map<std::int64_t, std::vector<RunOutcome>> cells;
  {
    auto stmt = db.prepare(
        "SELECT c.seq, j.status, j.conclusion FROM jobs j JOIN commits c ON c.sha = j.head_sha "
        "WHERE j.repo = ? AND j.workflow = ? AND j.job = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    stmt->bind(1, repo).bind(2, workflow).bind(3, job);
    auto read = platform::each_row<std::int64_t, std::string, std::optional<std::string>>(
        *stmt, [&](std::int64_t seq, std::string status, std::optional<std::string> conclusion) {
          cells[seq].push_back({std::move(status), std::move(conclusion)});
        });
    if (!read) return tl::unexpected(read.error());
  }
  std::vector<CellPoint> points;
  for (const auto& [seq, runs] : cells) points.push_back({seq, merge_cell(runs)});
  const auto findings = find_breakages(points);

  std::vector<Existing> existing;
  {
    auto stmt = db.prepare(
        "SELECT b.id, g.seq, f.seq, b.opened_at, b.closed_at FROM breakages b "
        "JOIN commits g ON g.sha = b.last_good_sha JOIN commits f ON f.sha = b.first_bad_sha "
        "WHERE b.repo = ? AND b.workflow = ? AND b.job = ? AND b.state != 'retracted'");
    if (!stmt) return tl::unexpected(stmt.error());
    stmt->bind(1, repo).bind(2, workflow).bind(3, job);
    auto read = platform::each_row<std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                   std::optional<std::int64_t>>(
        *stmt, [&](std::int64_t id, std::int64_t last_good, std::int64_t first_bad, std::int64_t opened_at,
                   std::optional<std::int64_t> closed_at) {
          existing.push_back({id, last_good, first_bad, opened_at, closed_at, false});
        });
    if (!read) return tl::unexpected(read.error());
  }
  for (const auto& finding : findings) {
    Existing* match = nullptr;
    for (auto& e : existing) {
      // A narrowed range lies inside the old one: overlapping ranges are the same breakage.
      if (!e.used && finding.last_good_seq < e.first_bad && e.last_good < finding.first_bad_seq) {
        match = &e;
        break;
      }
    }
    auto good = commit_at(db, finding.last_good_seq);
    if (!good) return tl::unexpected(good.error());
    auto bad = commit_at(db, finding.first_bad_seq);
    if (!bad) return tl::unexpected(bad.error());
    auto first_suspect = commit_at(db, finding.last_good_seq + 1);
    if (!first_suspect) return tl::unexpected(first_suspect.error());
    std::optional<CommitInfo> fixed;
    if (finding.fixed_seq) {
      auto f = commit_at(db, *finding.fixed_seq);
      if (!f) return tl::unexpected(f.error());
      fixed = *f;
    }
    const std::int64_t opened_at = match != nullptr ? match->opened_at : now;
    std::optional<std::int64_t> closed_at;
    if (fixed) closed_at = match != nullptr && match->closed_at ? *match->closed_at : now;
    const bool single = finding.suspects() == 1;
    const std::int64_t latency = opened_at - (single ? bad->time : first_suspect->time);
    auto stmt = db.prepare(
        match != nullptr
            ? "UPDATE breakages SET last_good_sha = ?1, first_bad_sha = ?2, suspects = ?3, culprit_sha = ?4, "
              "detection_latency_s = ?5, fixed_sha = ?6, closed_at = ?7, state = ?8 WHERE id = ?9"
            : "INSERT INTO breakages(last_good_sha, first_bad_sha, suspects, culprit_sha, "
              "detection_latency_s, "
              "fixed_sha, closed_at, state, repo, workflow, job, opened_at) "
              "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?10,?11,?12,?13)");
    if (!stmt) return tl::unexpected(stmt.error());
    stmt->bind(1, good->sha).bind(2, bad->sha).bind(3, finding.suspects());
    if (single)
      stmt->bind(4, bad->sha);
    else
      stmt->bind_null(4);
    stmt->bind(5, latency);
    if (fixed)
      stmt->bind(6, fixed->sha).bind(7, *closed_at);
    else
      stmt->bind_null(6).bind_null(7);
    stmt->bind(8, std::string_view(fixed ? "closed" : "open"));
    if (match != nullptr) {
      stmt->bind(9, match->id);
      match->used = true;
    } else {
      stmt->bind(10, repo).bind(11, workflow).bind(12, job).bind(13, opened_at);
    }
    if (auto ok = stmt->run(); !ok) return ok;
  }
  for (const auto& e : existing) {
    if (e.used) continue;
    // The evidence changed (a rerun turned the failure flaky): keep the row, out of the open list.
    auto stmt = db.prepare("UPDATE breakages SET state = 'retracted' WHERE id = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    if (auto ok = stmt->bind(1, e.id).run(); !ok) return ok;
  }
  return {};
}

Status Attribution::attribute_shas(const std::vector<std::string>& shas, std::int64_t now) {
  std::set<std::tuple<std::string, std::string, std::string>> keys;
  for (const auto& sha : shas) {
    auto stmt = m_store.cached("SELECT DISTINCT repo, workflow, job FROM jobs WHERE head_sha = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    auto read = platform::each_row<std::string, std::string, std::string>(
        (*stmt)->bind(1, sha), [&](std::string repo, std::string workflow, std::string job) {
          keys.emplace(std::move(repo), std::move(workflow), std::move(job));
        });
    if (!read) return tl::unexpected(read.error());
  }
  for (const auto& [repo, workflow, job] : keys) {
    if (auto ok = attribute({repo, workflow, job}, now); !ok) return ok;
  }
  return {};
}

}  // namespace relforge::ci_relay
