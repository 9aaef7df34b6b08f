#pragma once
// The cherry-pick ledger (SQLite): every pick request with its criterion, its state
// (requested → approved|rejected → applied|conflict) and an append-only event log.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "platform/sqlite.hpp"

namespace relforge::release {

struct Pick {
  std::int64_t id = 0;
  std::string series;  // "2.7"
  std::string sha;     // the original commit on main
  std::string subject;
  std::string reason;  // regression | critical | fixnewfeature | docs | release
  std::string note;
  std::string state;  // requested | approved | rejected | applied | conflict
  std::string applied_sha;
  std::vector<std::string> conflict_files;
  bool needs_rc = false;  // applied after an RC of its version: a new RC must be tagged
  // Audit: who ("Name <email>", from git config or --as) and when (RFC 3339, UTC) for each decision.
  std::string requested_by, requested_at;
  std::string approved_by, approved_at;
  std::string rejected_by, rejected_at, reject_reason;
  bool backport = false;  // prepared on a branch off the release branch, not picked from main
};

// Who and when, recorded with a request or decision.
struct Actor {
  std::string who;   // "Name <email>"
  std::string when;  // RFC 3339, e.g. 2026-11-30T23:59:01Z
};

// Validates a criterion; invalid_input names the valid ones.
Status check_reason(const std::string& reason);

class Ledger {
public:
  static Result<Ledger> open(const std::filesystem::path& path);

  // conflict when the same commit is already requested for the series.
  Result<Pick> add(const std::string& series, const std::string& sha, const std::string& subject,
                   const std::string& reason, const std::string& note, const Actor& requester = {},
                   bool backport = false);
  Result<Pick> get(std::int64_t id);
  Result<std::vector<Pick>> list(const std::optional<std::string>& series);
  Status update(const Pick& pick);  // state, applied_sha, conflict_files, needs_rc, the decisions' audit
  Status clear_needs_rc(const std::string& series);
  Status log(const std::string& series, std::int64_t pick_id, const std::string& action,
             const std::string& detail);

private:
  explicit Ledger(platform::Database db) : m_db(std::move(db)) {}
  platform::Database m_db;
};

}  // namespace relforge::release
