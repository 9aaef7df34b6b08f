#pragma once
// A mutating release command as a transaction: a plan (refs moved old → new, files changed, ledger
// entries rewritten) recorded in a journal before any ref moves, applied with compare-and-swap,
// finished by re-running the same command or rolled back with --abort (docs/release.md).
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "platform/file_lock.hpp"
#include "release/git.hpp"
#include "release/ledger.hpp"

namespace relforge::release {

struct FileChange {
  std::string path;
  std::string summary;  // "2.7.0a0 -> 2.7.0", "2 x '@main' -> '@release/2.7'"
};

// One ref the command creates or moves: old_sha empty = created. new_sha is the object the ref
// will hold (a tag object for a tag); empty in a dry run when that object is not written yet.
struct RefUpdate {
  std::string ref;
  std::string old_sha;
  std::string new_sha;
  std::string commit;   // the commit the ref ends at (empty in a dry run for a new commit)
  std::string summary;  // "new commit on 1a2b3c4d5e6f: Bump version to 2.8.0a0"
};

struct Plan {
  std::string command;  // "cut 2.7", "pick apply 3", "rc 2.7", "final 2.7", "patch 2.7.1"
  std::vector<RefUpdate> refs;
  std::vector<FileChange> files;
  std::vector<Pick> picks_before;      // ledger entries as they were ...
  std::vector<Pick> picks_after;       // ... and as the command leaves them (written after the refs)
  std::vector<std::string> push_refs;  // what --push sends (the refs this command made)
  std::string push_remote;             // empty: no push
  std::vector<std::string> pushed;     // refspecs the remote accepted
  std::string result;                  // the command's own result as JSON (for a resumed run)
};

// Called with each step's name as it completes: "journal-written", "checkout-N" (after each file the
// checkout of ref N's branch writes; inside libgit2, so it must not throw), "ref-1".."ref-N",
// "ledger-written", "pushed", "abort-checkout-N". Tests kill the process there; releases have none.
using StepHook = std::function<void(std::string_view step)>;

enum class TxMode { run, dry_run, abort };

struct TxOptions {
  TxMode mode = TxMode::run;
  StepHook hook;
};

struct TxOutcome {
  Plan plan;
  bool executed = false;  // the refs moved (false for a dry run)
  bool resumed = false;   // an interrupted run of the same command was finished
  bool aborted = false;   // --abort restored the recorded old values
  // With aborted: ledger values changed since the journal was written, left as they are (a note each).
  std::vector<std::string> ledger_kept;
};

// <common git dir>/relforge/journal.json (shared by linked worktrees): present only while a command
// is unfinished.
std::filesystem::path journal_path(const Repository& repo);
Result<std::optional<Plan>> read_journal(const Repository& repo);

// Runs `command`. With a journal of the same command: finishes it (or, with abort, restores every
// ref and ledger field it set to its recorded old value); a journal of another command is a conflict.
// Ledger entries are merged with edits made since the journal was written (ledger_rewrite.hpp): an
// edit a resumed run would overwrite stops it before anything moves (conflict).
// Without one: `make_plan(write_objects)` plans (objects only when not a dry run), the journal is
// written atomically, refs move by compare-and-swap, the ledger is written, `push` (when not
// empty) sends push_refs in one push, and the journal is removed. A rejected push keeps the journal.
Result<TxOutcome> run_transaction(const Repository& repo, Ledger* ledger, const std::string& command,
                                  const TxOptions& options, const std::string& push,
                                  const std::function<Result<Plan>(bool write_objects)>& make_plan);

// For a command outside a transaction that writes ledger entries (a pick's request or decision):
// takes <common git dir>/relforge/release.lock and refuses (conflict) while a journal exists, naming the
// unfinished command (finishing or aborting it writes the ledger entries it recorded).
Result<platform::FileLock> lock_without_journal(const Repository& repo, const std::string& action);
// The same refusal without the lock (for a check before other work, such as a ledger sync).
Status require_no_journal(const Repository& repo, const std::string& action);

std::string plan_to_json(const Plan& plan);
Result<Plan> plan_from_json(const std::string& text);

}  // namespace relforge::release
