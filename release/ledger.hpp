#pragma once
// The cherry-pick ledger, kept in the repository on refs/relforge/releases: a commit chain whose
// tree holds one JSON file per release (<X.Y>.json: its picks and event log), written through
// libgit2 by compare-and-swap, so git fetch/push share it and `sync` merges concurrent edits.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "release/git.hpp"

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

// One release's part of the ledger (the file <X.Y>.json).
struct LedgerEvent {
  std::int64_t pick = 0;  // 0: the release itself (an RC, the final)
  std::string action;
  std::string detail;
};

struct SeriesLedger {
  std::vector<Pick> picks;  // by id
  std::vector<LedgerEvent> events;
};

using LedgerData = std::map<std::string, SeriesLedger>;  // series → its ledger

// Merges the remote's ledger and ours. Entries are keyed by release and commit: the remote keeps
// its ids, a pick only we have whose id the remote uses for another commit gets the next free id;
// when both sides changed one pick, the further state wins (requested < approved < conflict <
// rejected < applied). `notes` says what was renumbered or resolved.
LedgerData merge_ledgers(const LedgerData& ours, const LedgerData& theirs, std::vector<std::string>& notes);

struct SyncReport {
  std::string before, after;  // our ledger commit before and after (empty: none)
  bool fetched = false, pushed = false;
  std::vector<std::string> notes;  // from merge_ledgers
};

// Validates a criterion; invalid_input names the valid ones.
Status check_reason(const std::string& reason);

class Ledger {
public:
  static constexpr const char* k_ref = "refs/relforge/releases";

  // The ledger of `repo` (which must outlive it). While the ref does not exist, a SQLite ledger at
  // `legacy` (the former .git/relforge/release.db) is migrated: read into the ref and renamed to
  // <legacy>.migrated, or with `migrate` false only read; once the ref exists the file is left
  // alone, unread. A file that is no relforge SQLite ledger is invalid_input, left as it was.
  static Result<Ledger> open(const Repository& repo, const std::filesystem::path& legacy = {},
                             bool migrate = true);

  // conflict when the same commit is already requested for the series.
  Result<Pick> add(const std::string& series, const std::string& sha, const std::string& subject,
                   const std::string& reason, const std::string& note, const Actor& requester = {},
                   bool backport = false);
  Result<Pick> get(std::int64_t id);
  Result<std::vector<Pick>> list(const std::optional<std::string>& series);
  Status update(const Pick& pick);  // every field of the pick with this id
  Status clear_needs_rc(const std::string& series);
  Status log(const std::string& series, std::int64_t pick_id, const std::string& action,
             const std::string& detail);
  // Fetches the remote's ledger, merges it with ours, and pushes the result (retrying when the
  // remote moved meanwhile).
  Result<SyncReport> sync(const std::string& remote);
  Result<LedgerData> read() const;
  // Applies `mutate` to the whole ledger as one commit (compare-and-swap; run again over a fresh
  // read when another writer won, so it may run more than once); `what` is the commit's subject.
  Status edit(const std::string& what, const std::function<Status(LedgerData&)>& mutate);

private:
  explicit Ledger(const Repository& repo) : m_repo(&repo) {}
  // Read, change, write as one compare-and-swap of the ref (retried when another writer won).
  template <typename Change>
  Status change(const std::string& what, Change&& mutate);
  const Repository* m_repo;
  std::optional<LedgerData> m_unmigrated;  // a legacy ledger read without migrating it
};

}  // namespace relforge::release
