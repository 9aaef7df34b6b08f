#pragma once
// The git operations release/ needs, through libgit2 only: resolve refs, read files at a commit,
// write commits and refs without touching other branches, cherry-pick in memory, tag and push.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

struct git_repository;

namespace relforge::release {

// A cherry-pick computed in memory: either the tree of the result or the conflicting paths.
struct CherryPick {
  std::optional<std::string> tree;     // tree id when the pick applies cleanly
  std::vector<std::string> conflicts;  // paths with conflicts (sorted) otherwise
};

// What a remote said of each ref in one push.
struct PushReport {
  std::vector<std::string> accepted;                          // refs the remote updated
  std::vector<std::pair<std::string, std::string>> rejected;  // ref, the remote's reason
};

struct CommitInfo {
  std::string sha;
  std::string message;
  std::string author_name;
  std::string author_email;
  std::int64_t author_time = 0;
  int author_offset = 0;  // minutes east of UTC
  std::vector<std::string> parents;
};

// Whether git accepts `name` as a branch (refs/heads/<name> is a valid ref name, not "HEAD", no
// leading '-'), as git_branch_name_is_valid says.
bool is_valid_branch_name(const std::string& name);
// Whether git accepts `name` as a tag (refs/tags/<name> passes git check-ref-format: no "..",
// "@{", space, control, ~^:?*[\\, no leading '-', no ".lock" or "/." part).
bool is_valid_tag_name(const std::string& name);

class Repository {
public:
  // Opens the repository containing `path` (searching upward); not_found when there is none,
  // invalid_input when $GIT_DIR is set and names another repository (git would act on that one).
  static Result<Repository> open(const std::filesystem::path& path);

  Repository(Repository&&) noexcept;
  Repository& operator=(Repository&&) noexcept;
  ~Repository();

  std::filesystem::path workdir() const;
  // Where relforge keeps its journal, lock and ledger: <common git dir>/relforge, one folder for
  // the repository and every linked worktree of it.
  std::filesystem::path state_dir() const;

  // Any revision spelling git accepts ("main", "v1.0^{}", a short SHA) → full commit id.
  Result<std::string> resolve_commit(std::string_view spec) const;
  // The commit a full ref name ("refs/heads/x") points at, or nullopt when it does not exist.
  Result<std::optional<std::string>> ref_target(const std::string& ref) const;
  // The short name of the branch HEAD is on; nullopt when detached or unborn.
  std::optional<std::string> head_branch() const;
  std::vector<std::string> list_refs(const std::string& glob) const;  // full names, sorted
  // Existing refs that stop `ref` from being created, git's folder/file clash: a ref named like a
  // folder above it (refs/heads/release for refs/heads/release/2.7) or refs inside it; sorted.
  std::vector<std::string> clashing_refs(const std::string& ref) const;
  // Whether branch `ref` ("refs/heads/x") is HEAD of another worktree of this repository (moving
  // it would leave that work tree and index behind its branch, which git refuses too).
  bool checked_out_elsewhere(const std::string& ref) const;

  Result<std::optional<std::string>> read_file(const std::string& commit, const std::string& path) const;
  // Every regular file (executable or not; no symlinks, no submodules) of a commit's tree, sorted.
  Result<std::vector<std::string>> list_files(const std::string& commit) const;
  // Writes those files under `dir` (which must exist), executable bits kept; returns their paths.
  Result<std::vector<std::string>> export_files(const std::string& commit,
                                                const std::filesystem::path& dir) const;
  Result<CommitInfo> commit_info(const std::string& commit) const;
  Result<bool> is_descendant_or_equal(const std::string& commit, const std::string& ancestor) const;
  // Tracked files modified, staged or deleted (untracked files do not count).
  Result<std::vector<std::string>> dirty_paths() const;

  // Writes a commit on top of `parent` whose tree is the parent's with `files` replaced; no ref moves.
  Result<std::string> write_commit(const std::string& parent, const std::map<std::string, std::string>& files,
                                   const std::string& message) const;
  Result<CherryPick> cherry_pick(const std::string& commit, const std::string& onto) const;
  // Writes a commit with `tree`, one parent, the original author of `author_from`, and `message`.
  Result<std::string> write_commit_with_tree(const std::string& parent, const std::string& tree,
                                             const std::string& author_from,
                                             const std::string& message) const;

  // Creates `ref`; conflict when it exists.
  Status create_ref(const std::string& ref, const std::string& commit, const std::string& log) const;
  Status create_annotated_tag(const std::string& name, const std::string& commit,
                              const std::string& message) const;
  // Pushes `refspecs` to a remote name or URL in one push; conflict when the remote rejects a ref.
  Status push(const std::string& remote, const std::vector<std::string>& refspecs) const;
  // The same push, reporting per ref what the remote accepted and rejected (no error for a rejection).
  // conflict: refused as a whole (nothing sent, or all declined); io naming the refs the remote
  // accepted when a later step failed (the remote-tracking refs here); network otherwise.
  Result<PushReport> push_report(const std::string& remote, const std::vector<std::string>& refspecs) const;
  // What `remote` has now (one connection; refs/heads/*, refs/tags/*, refs/relforge/*): ref → object id.
  Result<std::map<std::string, std::string>> remote_refs(const std::string& remote) const;
  // Counts commits in `local` not in `remote` (ahead) and the reverse (behind); both must exist here.
  Result<std::pair<std::size_t, std::size_t>> ahead_behind(const std::string& local,
                                                           const std::string& remote) const;

  // The object id `ref` points at, unpeeled (a tag object for an annotated tag); nullopt if absent.
  Result<std::optional<std::string>> ref_object(const std::string& ref) const;
  // Compare-and-swap: moves `ref` from `expected` (empty: it must not exist) to `target` (empty:
  // delete it); conflict when the ref is not at `expected`, so two racing writers cannot both win.
  Status update_ref(const std::string& ref, const std::string& expected, const std::string& target,
                    const std::string& log) const;
  // When HEAD is on branch `ref`, brings index and work tree from commit `from` to commit `to` over
  // the paths the two differ in; each must hold either side's version (so a checkout cut short is
  // finished, or undone, by running it again), any other content is a conflict and nothing changes.
  // `on_file` runs after each file the checkout writes or removes.
  Status sync_worktree(const std::string& ref, const std::string& from, const std::string& to,
                       const std::function<void()>& on_file = {}) const;
  // The conflict sync_worktree(ref, from, to) would refuse with, found without changing anything.
  Status check_worktree(const std::string& ref, const std::string& from, const std::string& to) const;
  // Writes an annotated tag object for `commit` without creating its ref; returns its id.
  Result<std::string> write_tag_object(const std::string& name, const std::string& commit,
                                       const std::string& message) const;
  // Commits reachable from `head` but not from `hide`, newest first (git rev-list head ^hide).
  Result<std::vector<std::string>> commit_ids_between(const std::string& head, const std::string& hide) const;
  // "Name <email>" from git config (user.name, user.email); invalid_input when unset.
  Result<std::string> identity() const;
  // The top-level files (blobs) of a commit's tree: name → content.
  Result<std::map<std::string, std::string>> read_top_files(const std::string& commit) const;
  // Writes a commit whose tree holds exactly `files` (top level), with `parents` (none: a root
  // commit), signed with git config's identity; no ref moves.
  Result<std::string> write_tree_commit(const std::vector<std::string>& parents,
                                        const std::map<std::string, std::string>& files,
                                        const std::string& message) const;
  // Fetches `remote_ref` from `remote` into `local_ref` (forced: it is a scratch copy).
  Status fetch_ref(const std::string& remote, const std::string& remote_ref,
                   const std::string& local_ref) const;
  // The tree id of a commit.
  Result<std::string> tree_of(const std::string& commit) const;
  // The patch id of a single-parent commit (what `git patch-id --stable` compares).
  Result<std::string> patch_id(const std::string& commit) const;

private:
  explicit Repository(git_repository* repo) : m_repo(repo) {}
  git_repository* m_repo = nullptr;
};

}  // namespace relforge::release
