#pragma once
// Cherry-picks onto release/X.Y through the ledger: request (with a criterion), approve or reject,
// apply (an in-memory libgit2 cherry-pick; a conflict changes nothing but the ledger entry).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "release/config.hpp"
#include "release/git.hpp"
#include "release/ledger.hpp"
#include "release/transaction.hpp"

namespace relforge::release {

struct PickRequestOptions {
  std::string sha;
  std::string reason;
  std::string note;
  std::optional<std::string> series;  // default: the newest release branch
  bool backport = false;              // the commit sits on a branch off the release branch, not on main
  Actor actor;                        // who asks and when (who: default git config's identity)
};

// A person as the ledger records them: one line "Name <email>" without control characters; what
// the ledger shows could otherwise be forged (a newline adding an "approved by" line).
Status check_actor(const std::string& who);
// Free text for the ledger (`what`: "--note"): no control characters but tab.
Status check_ledger_text(const std::string& text, const std::string& what);

enum class Decision { approve, reject };

enum class ApplyScope { one, all_approved };

struct PickApplyOptions {
  ApplyScope scope = ApplyScope::one;
  std::int64_t id = 0;                // with ApplyScope::one
  std::optional<std::string> series;  // with all_approved; default the newest release branch
  TxMode mode = TxMode::run;          // dry_run: the plan only; abort: roll an interrupted apply back
  std::optional<std::string> push;    // push the release branch to this remote
  StepHook hook;
};

struct PickApplyResult {
  std::vector<Pick> picks;  // as applied
  Plan plan;
  bool executed = false;
  bool resumed = false;
  bool aborted = false;
  std::vector<std::string> ledger_kept;  // TxOutcome::ledger_kept
};

// The conflict of an apply is reported both in the ledger and as this error (category conflict).
Result<Pick> run_pick_request(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                              const PickRequestOptions& options);
// A request for a commit already on the branch (the same commit, or one with the same patch id)
// is refused (conflict) naming it: "already on release/X.Y as <sha>".
// `reason` is required to reject; `actor.who` defaults to git config's identity. Request and
// decision refuse (conflict) while a release command is unfinished (transaction.hpp's journal).
Result<Pick> run_pick_decide(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                             std::int64_t id, Decision decision, Actor actor = {},
                             const std::string& reason = {});
// Applies in id order and stops at the first conflict (later picks may depend on it), as one
// transaction that moves the release branch once; a pick that would change nothing is refused.
Result<PickApplyResult> run_pick_apply_tx(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                          const PickApplyOptions& options);
// The picks of run_pick_apply_tx.
Result<std::vector<Pick>> run_pick_apply(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                         const PickApplyOptions& options);

// "(cherry picked from commit SHA)" appended as git cherry-pick -x does.
std::string cherry_pick_message(const std::string& original, const std::string& sha);

}  // namespace relforge::release
