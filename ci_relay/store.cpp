#include "ci_relay/store.hpp"

#include "ci_relay/schema.hpp"
#include "core/retry.hpp"
#include "platform/sqlite_rows.hpp"

namespace relforge::ci_relay {
namespace {

// What migrate would refuse or do, said without writing.
Status check_schema_version(platform::Database& db, const std::filesystem::path& path) {
  auto stmt = db.prepare("PRAGMA user_version");
  if (!stmt) return tl::unexpected(stmt.error());
  auto row = platform::first_row<std::int64_t>(*stmt);
  if (!row) return tl::unexpected(row.error());
  const std::int64_t version = *row ? std::get<0>(**row) : 0;
  const auto known = static_cast<std::int64_t>(schema_migrations().size());
  if (version > known) {
    return fail(ErrorCategory::conflict,
                "the relay database " + path.string() + " has schema version " + std::to_string(version) +
                    " but this relforge knows only up to " + std::to_string(known) + "; upgrade relforge");
  }
  if (version < known) {
    return fail(ErrorCategory::conflict,
                "the relay database " + path.string() + " has schema version " + std::to_string(version) +
                    " (this relforge's is " + std::to_string(known) +
                    "); start `relforge relay serve` on it once to migrate it, then rerun");
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<RelayStore>> RelayStore::open(RelayConfig config, const std::filesystem::path& db_path,
                                                     platform::OpenMode mode) {
  auto db = platform::Database::open(db_path, mode);
  if (!db) return tl::unexpected(Error(db.error()).with_context("opening the relay database"));
  if (mode == platform::OpenMode::read_only) {
    if (auto ok = check_schema_version(*db, db_path); !ok) return tl::unexpected(ok.error());
    std::unique_ptr<RelayStore> store(new RelayStore(std::move(config), std::move(*db)));
    return store;
  }
  // An acknowledged delivery must survive power loss too, not only a crash: fsync every commit
  // (WAL keeps that one fsync per transaction; group commit shares it between deliveries).
  const bool file = db_path != ":memory:";
  if (file) {
    if (auto ok = db->execute("PRAGMA synchronous=FULL"); !ok) return tl::unexpected(ok.error());
  }
  // SQLite's default 2 MB page cache spills dirty pages to the WAL in the middle of a normalisation
  // batch (written twice then); 64 MB keeps a batch, and the hot index pages, in memory.
  if (auto ok = db->execute("PRAGMA cache_size=-65536"); !ok) return tl::unexpected(ok.error());
  // Each normalised delivery runs in a savepoint; its undo records (the statement journal) stay
  // in memory instead of a temporary file written with a syscall per page.
  if (auto ok = db->execute("PRAGMA temp_store=MEMORY"); !ok) return tl::unexpected(ok.error());
  if (auto ok = db->migrate(schema_migrations()); !ok) {
    return tl::unexpected(Error(ok.error()).with_context("migrating " + db_path.string()));
  }
  if (auto ok = schema_cleanup(*db); !ok) {
    return tl::unexpected(Error(ok.error()).with_context("migrating " + db_path.string()));
  }
  std::unique_ptr<RelayStore> store(new RelayStore(std::move(config), std::move(*db)));
  store->m_fsync_commits = file;
  return store;
}

Result<StatementLease> RelayStore::cached(const char* sql) {
  auto& slot = m_statements[sql];
  if (!slot) {
    auto prepared = m_db.prepare(sql);
    if (!prepared) {
      m_statements.erase(sql);
      return tl::unexpected(prepared.error());
    }
    slot = std::make_unique<platform::Statement>(std::move(*prepared));
  }
  slot->reset();
  return StatementLease(slot.get());
}

Status RelayStore::require_full_sync() {
  if (!m_sync_relaxed) return {};
  if (auto ok = m_db.execute("PRAGMA synchronous=FULL"); !ok) return ok;
  m_sync_relaxed = false;
  return {};
}

Status RelayStore::relax_sync() {
  if (!m_fsync_commits) return {};
  if (auto ok = m_db.execute("PRAGMA synchronous=NORMAL"); !ok) return ok;
  m_sync_relaxed = true;  // until FULL is back: intake refuses rather than acknowledge unsynced
  return {};
}

Status RelayStore::settle(const DeliveryOutcome& outcome) {
  auto stmt = cached("INSERT OR REPLACE INTO delivery_outcomes(delivery, state, note) VALUES(?,?,?)");
  if (!stmt) return tl::unexpected(stmt.error());
  (*stmt)->bind(1, outcome.delivery).bind(2, outcome.state);
  if (outcome.note.empty())
    (*stmt)->bind_null(3);
  else
    (*stmt)->bind(3, outcome.note);
  return (*stmt)->run();
}

Status RelayStore::bump_counter(const std::string& name) {
  auto stmt = cached(
      "INSERT INTO counters(name, value) VALUES(?, 1) "
      "ON CONFLICT(name) DO UPDATE SET value = value + 1");
  if (!stmt) return tl::unexpected(stmt.error());
  return (*stmt)->bind(1, name).run();
}

Status record_failed_call(platform::Database& db, const RelayConfig& config, std::string_view table,
                          std::string_view key_column, std::int64_t key, long status,
                          const std::string& error, std::int64_t now) {
  const auto transient = status == 0 || status == 408 || status == 429 || status >= 500 ? core::Transient::yes
                                                                                        : core::Transient::no;
  const std::string text = status == 0 ? error : "HTTP " + std::to_string(status) + " " + error;
  const std::string where = " WHERE " + std::string(key_column) + " = ?";
  auto read = db.prepare("SELECT attempts FROM " + std::string(table) + where);
  if (!read) return tl::unexpected(read.error());
  auto row = platform::first_row<std::int64_t>(read->bind(1, key));
  if (!row) return tl::unexpected(row.error());
  if (!*row)
    return fail(ErrorCategory::not_found, "no " + std::string(table) + " row " + std::to_string(key));
  const std::int64_t attempts = std::get<0>(**row) + 1;
  const core::RetryPolicy policy{config.max_attempts, config.backoff_seconds, 3600};
  const bool give_up = policy.gives_up(attempts, transient);
  auto update = db.prepare("UPDATE " + std::string(table) +
                           " SET attempts = ?, state = ?, next_attempt_at = ?, last_error = ?" + where);
  if (!update) return tl::unexpected(update.error());
  update->bind(1, attempts).bind(2, std::string_view(give_up ? "failed" : "pending"));
  update->bind(3, now + policy.delay_after(attempts)).bind(4, text.substr(0, 500));
  return update->bind(5, key).run();
}

}  // namespace relforge::ci_relay
