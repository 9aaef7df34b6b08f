#include "release/ledger.hpp"

#include <array>

#include "core/text.hpp"

namespace relforge::release {
namespace {

const std::vector<std::string> k_migrations = {
    R"(CREATE TABLE picks(
         id INTEGER PRIMARY KEY,
         series TEXT NOT NULL,
         sha TEXT NOT NULL,
         subject TEXT NOT NULL,
         reason TEXT NOT NULL,
         note TEXT NOT NULL,
         state TEXT NOT NULL,
         applied_sha TEXT NOT NULL DEFAULT '',
         conflict_files TEXT NOT NULL DEFAULT '',
         needs_rc INTEGER NOT NULL DEFAULT 0,
         UNIQUE(series, sha));
       CREATE TABLE events(
         id INTEGER PRIMARY KEY,
         series TEXT NOT NULL,
         pick_id INTEGER NOT NULL,
         action TEXT NOT NULL,
         detail TEXT NOT NULL);)",
    R"(ALTER TABLE picks ADD COLUMN requested_by TEXT NOT NULL DEFAULT '';
       ALTER TABLE picks ADD COLUMN requested_at TEXT NOT NULL DEFAULT '';
       ALTER TABLE picks ADD COLUMN approved_by TEXT NOT NULL DEFAULT '';
       ALTER TABLE picks ADD COLUMN approved_at TEXT NOT NULL DEFAULT '';
       ALTER TABLE picks ADD COLUMN rejected_by TEXT NOT NULL DEFAULT '';
       ALTER TABLE picks ADD COLUMN rejected_at TEXT NOT NULL DEFAULT '';
       ALTER TABLE picks ADD COLUMN reject_reason TEXT NOT NULL DEFAULT '';
       ALTER TABLE picks ADD COLUMN backport INTEGER NOT NULL DEFAULT 0;)",
};

constexpr std::array<std::string_view, 5> k_reasons = {"regression", "critical", "fixnewfeature", "docs",
                                                       "release"};
constexpr std::string_view k_columns =
    "id, series, sha, subject, reason, note, state, applied_sha, conflict_files, needs_rc, requested_by, "
    "requested_at, approved_by, approved_at, rejected_by, rejected_at, reject_reason, backport";

Pick read_pick(const platform::Statement& row) {
  Pick pick;
  pick.id = row.column_int(0);
  pick.series = row.column_text(1);
  pick.sha = row.column_text(2);
  pick.subject = row.column_text(3);
  pick.reason = row.column_text(4);
  pick.note = row.column_text(5);
  pick.state = row.column_text(6);
  pick.applied_sha = row.column_text(7);
  const std::string files = row.column_text(8);
  if (!files.empty()) {
    for (const auto part : core::split(files, '\n')) pick.conflict_files.emplace_back(part);
  }
  pick.needs_rc = row.column_int(9) != 0;
  pick.requested_by = row.column_text(10);
  pick.requested_at = row.column_text(11);
  pick.approved_by = row.column_text(12);
  pick.approved_at = row.column_text(13);
  pick.rejected_by = row.column_text(14);
  pick.rejected_at = row.column_text(15);
  pick.reject_reason = row.column_text(16);
  pick.backport = row.column_int(17) != 0;
  return pick;
}

}  // namespace

Status check_reason(const std::string& reason) {
  for (const auto known : k_reasons) {
    if (reason == known) return {};
  }
  return fail(
      ErrorCategory::invalid_input,
      "unknown pick criterion '" + reason + "': use regression, critical, fixnewfeature, docs or release");
}

Result<Ledger> Ledger::open(const std::filesystem::path& path) {
  auto db = platform::Database::open(path);
  if (!db)
    return with_context(Result<Ledger>(tl::unexpected(db.error())),
                        "opening the pick ledger " + path.string());
  if (auto ok = db->migrate(k_migrations); !ok) return tl::unexpected(ok.error());
  return Ledger(std::move(*db));
}

Result<Pick> Ledger::add(const std::string& series, const std::string& sha, const std::string& subject,
                         const std::string& reason, const std::string& note, const Actor& requester,
                         bool backport) {
  auto existing = m_db.prepare("SELECT id, state FROM picks WHERE series = ?1 AND sha = ?2");
  if (!existing) return tl::unexpected(existing.error());
  existing->bind(1, std::string_view(series)).bind(2, std::string_view(sha));
  auto found = existing->step();
  if (!found) return tl::unexpected(found.error());
  if (*found) {
    return fail(ErrorCategory::conflict, "commit " + sha + " is already pick #" +
                                             std::to_string(existing->column_int(0)) + " for " + series +
                                             " (" + existing->column_text(1) + ")");
  }
  auto insert = m_db.prepare(
      "INSERT INTO picks(series, sha, subject, reason, note, state, requested_by, requested_at, backport) "
      "VALUES(?1, ?2, ?3, ?4, ?5, 'requested', ?6, ?7, ?8)");
  if (!insert) return tl::unexpected(insert.error());
  insert->bind(1, std::string_view(series))
      .bind(2, std::string_view(sha))
      .bind(3, std::string_view(subject))
      .bind(4, std::string_view(reason))
      .bind(5, std::string_view(note))
      .bind(6, std::string_view(requester.who))
      .bind(7, std::string_view(requester.when))
      .bind(8, std::int64_t{backport ? 1 : 0});
  if (auto ok = insert->run(); !ok) return tl::unexpected(ok.error());
  return get(m_db.last_insert_rowid());
}

Result<Pick> Ledger::get(std::int64_t id) {
  auto select = m_db.prepare("SELECT " + std::string(k_columns) + " FROM picks WHERE id = ?1");
  if (!select) return tl::unexpected(select.error());
  select->bind(1, id);
  auto row = select->step();
  if (!row) return tl::unexpected(row.error());
  if (!*row)
    return fail(ErrorCategory::not_found,
                "no pick #" + std::to_string(id) + ": see 'relforge release picks'");
  return read_pick(*select);
}

Result<std::vector<Pick>> Ledger::list(const std::optional<std::string>& series) {
  auto select = m_db.prepare("SELECT " + std::string(k_columns) +
                             " FROM picks WHERE ?1 IS NULL OR series = ?1 ORDER BY id");
  if (!select) return tl::unexpected(select.error());
  if (series)
    select->bind(1, std::string_view(*series));
  else
    select->bind_null(1);
  std::vector<Pick> picks;
  while (true) {
    auto row = select->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    picks.push_back(read_pick(*select));
  }
  return picks;
}

Status Ledger::update(const Pick& pick) {
  auto statement = m_db.prepare(
      "UPDATE picks SET state = ?1, applied_sha = ?2, conflict_files = ?3, needs_rc = ?4, approved_by = ?6, "
      "approved_at = ?7, rejected_by = ?8, rejected_at = ?9, reject_reason = ?10 WHERE id = ?5");
  if (!statement) return tl::unexpected(statement.error());
  const std::string files = core::join(pick.conflict_files, "\n");
  statement->bind(1, std::string_view(pick.state))
      .bind(2, std::string_view(pick.applied_sha))
      .bind(3, std::string_view(files))
      .bind(4, std::int64_t{pick.needs_rc ? 1 : 0})
      .bind(5, pick.id)
      .bind(6, std::string_view(pick.approved_by))
      .bind(7, std::string_view(pick.approved_at))
      .bind(8, std::string_view(pick.rejected_by))
      .bind(9, std::string_view(pick.rejected_at))
      .bind(10, std::string_view(pick.reject_reason));
  return statement->run();
}

Status Ledger::clear_needs_rc(const std::string& series) {
  auto statement = m_db.prepare("UPDATE picks SET needs_rc = 0 WHERE series = ?1");
  if (!statement) return tl::unexpected(statement.error());
  statement->bind(1, std::string_view(series));
  return statement->run();
}

Status Ledger::log(const std::string& series, std::int64_t pick_id, const std::string& action,
                   const std::string& detail) {
  auto statement = m_db.prepare("INSERT INTO events(series, pick_id, action, detail) VALUES(?1, ?2, ?3, ?4)");
  if (!statement) return tl::unexpected(statement.error());
  statement->bind(1, std::string_view(series))
      .bind(2, pick_id)
      .bind(3, std::string_view(action))
      .bind(4, std::string_view(detail));
  return statement->run();
}

}  // namespace relforge::release
