#pragma once
// `release cut X.Y`: plan and create release/X.Y (plus orig/release/X.Y) with the release-only
// changes committed on it, and bump main to X.(Y+1).0a0, as one transaction (transaction.hpp);
// --dry-run stops after the plan.
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "release/config.hpp"
#include "release/git.hpp"
#include "release/transaction.hpp"

namespace relforge::release {

enum class DryRun { no, yes };

struct CutOptions {
  std::string series;               // "2.7"
  std::optional<std::string> from;  // default: config.last_known_good if it exists, else main
  DryRun dry_run = DryRun::no;
  std::optional<std::string> push;  // a remote name or URL
  // Main's version bump goes to this new branch (locally and on --push) instead of main, for a PR.
  std::optional<std::string> bump_via;
  bool abort = false;  // roll an interrupted cut back to its recorded old refs
  StepHook hook;
};

struct PlannedCommit {
  std::string branch;  // the branch it lands on
  std::string parent;
  std::string message;
  std::vector<FileChange> changes;
  std::string sha;  // empty on a dry run
};

struct CutResult {
  std::string series;
  std::string branch;    // release/2.7
  std::string orig_ref;  // refs/heads/orig/release/2.7
  std::string from_ref;
  std::string from_sha;
  std::string release_version;  // 2.7.0
  std::string main_version;     // 2.8.0a0
  PlannedCommit release_commit;
  PlannedCommit main_commit;
  bool executed = false;
  std::vector<std::string> pushed;  // refspecs pushed
  Plan plan;                        // the transaction (refs old -> new, files); not part of `result` JSON
  bool resumed = false;             // an interrupted cut was finished
  bool aborted = false;
};

Result<CutResult> run_release_cut(const Repository& repo, const ReleaseConfig& config,
                                  const CutOptions& options);

}  // namespace relforge::release
