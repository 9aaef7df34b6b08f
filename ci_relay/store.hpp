#pragma once
// The relay's SQLite database and what every part of the relay shares over it: opening (pragmas,
// migrations), the configuration, a cache of prepared statements, the fsync policy (every commit
// that acknowledges something is fsync'd) and the per-delivery outcome and counter rows.
// Not thread-safe: one thread at a time (RelayService holds its database lock around every use).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "ci_relay/config.hpp"
#include "core/error.hpp"
#include "platform/sqlite.hpp"

namespace relforge::ci_relay {

// A statement from the store's cache, reset when the lease ends (so no read stays open).
class StatementLease {
public:
  explicit StatementLease(platform::Statement* stmt) : m_stmt(stmt) {}
  StatementLease(StatementLease&& other) noexcept : m_stmt(std::exchange(other.m_stmt, nullptr)) {}
  StatementLease& operator=(StatementLease&&) = delete;
  ~StatementLease() {
    if (m_stmt != nullptr) m_stmt->reset();
  }
  platform::Statement* operator->() const { return m_stmt; }
  platform::Statement& operator*() const { return *m_stmt; }

private:
  platform::Statement* m_stmt;
};

// What a delivery came to, when not plainly "processed" (delivery_outcomes).
struct DeliveryOutcome {
  std::int64_t delivery = 0;  // delivery_log row id
  std::string_view state;     // ignored, rejected, processed
  std::string note;           // why; empty: NULL
};

// A failed outbound call (an outbox send or a log fetch) on its row: attempts + 1, then retried
// after the backoff of config's retry policy while the failure is transient (no answer, 408, 429,
// 5xx) and attempts remain, else `failed`. Runs inside the caller's transaction. `table` and
// `key_column` are fixed names ("outbox", "id"), never input.
Status record_failed_call(platform::Database& db, const RelayConfig& config, std::string_view table,
                          std::string_view key_column, std::int64_t key, long status,
                          const std::string& error, std::int64_t now);

class RelayStore {
public:
  // Opens and migrates `db_path` (":memory:" for tests; `mode` says whether a missing file is made);
  // a file database fsyncs commits. A read_only store is never migrated: an older schema is refused.
  static Result<std::unique_ptr<RelayStore>> open(RelayConfig config, const std::filesystem::path& db_path,
                                                  platform::OpenMode mode = platform::OpenMode::create);

  const RelayConfig& config() const { return m_config; }
  platform::Database& db() { return m_db; }

  // A prepared statement for `sql`, kept for the store's lifetime: `sql` must be a string literal
  // (the cache is keyed by its address).
  Result<StatementLease> cached(const char* sql);

  // Before a commit that acknowledges something: back to synchronous=FULL if it was relaxed.
  Status require_full_sync();
  // synchronous=NORMAL for a commit of derived rows, or of deliveries whose caller syncs the log
  // itself before acknowledging (a no-op for an in-memory database); intake that relies on the
  // commit calls require_full_sync before it.
  Status relax_sync();

  Status settle(const DeliveryOutcome& outcome);
  Status bump_counter(const std::string& name);

private:
  RelayStore(RelayConfig config, platform::Database db) : m_config(std::move(config)), m_db(std::move(db)) {}

  RelayConfig m_config;
  platform::Database m_db;
  bool m_fsync_commits = false;  // synchronous=FULL (a file database)
  bool m_sync_relaxed = false;   // synchronous=NORMAL set, FULL not yet restored
  // Declared after m_db: finalised before the database closes.
  std::unordered_map<const char*, std::unique_ptr<platform::Statement>> m_statements;
};

}  // namespace relforge::ci_relay
