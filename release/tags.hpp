#pragma once
// Release candidates, finals and patch cycles on release/X.Y, and the status of a release:
// `rc` tags the head vX.Y.Z-rcN, `final` tags vX.Y.Z on the last RC's commit, `patch` sets X.Y.Z.
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "release/config.hpp"
#include "release/git.hpp"
#include "release/ledger.hpp"
#include "release/state.hpp"
#include "release/transaction.hpp"

namespace relforge::release {

struct TagOptions {
  std::optional<std::string> series;  // default: the newest release branch
  std::optional<std::string> push;    // remote name or URL
  TxMode mode = TxMode::run;
  StepHook hook;
};

struct TagResult {
  std::string tag;  // v2.7.0-rc1, v2.7.0
  std::string commit;
  std::string version;  // 2.7.0
  std::vector<std::string> pushed;
  Plan plan;
  bool executed = false;
  bool resumed = false;
  bool aborted = false;
  std::vector<std::string> ledger_kept;  // TxOutcome::ledger_kept
};

struct PatchOptions {
  std::string version;  // X.Y.Z
  std::optional<std::string> push;
  TxMode mode = TxMode::run;
  StepHook hook;
};

struct PatchResult {
  std::string branch;
  std::string previous_version;
  std::string version;
  std::string commit;
  std::vector<std::string> pushed;
  Plan plan;
  bool executed = false;
  bool resumed = false;
  bool aborted = false;
};

// A local ref compared with the remote's copy.
struct RemoteRefState {
  std::string ref;
  std::string local;   // empty: missing here
  std::string remote;  // empty: missing on the remote
  std::size_t ahead = 0, behind = 0;
  bool known = true;  // false: the remote's commit is not here (fetch first), ahead/behind unknown
};

struct StatusResult {
  BranchState state;
  std::optional<Plan> unfinished;  // the journal of an interrupted command
  std::string remote;              // the remote compared with (empty: none)
  std::vector<RemoteRefState> remote_refs;
  std::vector<Pick> picks;
  bool rc_needed = false;             // the head moved since the last RC (or there is none)
  std::vector<std::string> blockers;  // what stops `release final` now
};

Result<TagResult> run_release_rc(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                 const TagOptions& options);
Result<TagResult> run_release_final(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                    const TagOptions& options);
Result<PatchResult> run_release_patch(const Repository& repo, const ReleaseConfig& config,
                                      const PatchOptions& options);
// With `remote`, also compares main, the release branch, its tags and the pick ledger's ref with
// the remote's.
Result<StatusResult> run_release_status(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                        const std::optional<std::string>& series,
                                        const std::optional<std::string>& remote = std::nullopt);

}  // namespace relforge::release
