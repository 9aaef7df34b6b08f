// Repository::sync_worktree: the work tree and index of a checked-out branch brought from one commit
// to another over the paths the two commits differ in, so a checkout cut short is finished or undone
// by running it again (in either direction).
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <git2.h>

#include "core/text.hpp"
#include "release/git.hpp"
#include "release/libgit2.hpp"

namespace relforge::release {

using namespace libgit2;

namespace {

using DiffPtr = Owned<git_diff, git_diff_free>;

Result<TreePtr> tree_at(git_repository* repo, const std::string& commit) {
  auto found = lookup_commit(repo, commit);
  if (!found) return tl::unexpected(found.error());
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, found->get()) != 0)
    return git_fail(ErrorCategory::io, "reading the tree of " + commit.substr(0, 12));
  return TreePtr(tree);
}

std::set<std::string> paths_of(git_diff* diff) {
  std::set<std::string> paths;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff, i);
    if (delta->old_file.path != nullptr) paths.insert(delta->old_file.path);
    if (delta->new_file.path != nullptr) paths.insert(delta->new_file.path);
  }
  return paths;
}

// No rename detection: a moved file is a deletion and an addition, both paths listed.
Result<std::vector<std::string>> changed_paths(git_repository* repo, git_tree* from, git_tree* to) {
  git_diff* diff = nullptr;
  if (git_diff_tree_to_tree(&diff, repo, from, to, nullptr) != 0)
    return git_fail(ErrorCategory::io, "comparing two trees");
  DiffPtr owned(diff);
  const auto paths = paths_of(diff);
  return std::vector<std::string>(paths.begin(), paths.end());
}

enum class Side { work_tree, index };

// Of `pathspec` (exact paths), those whose content in the work tree (untracked and ignored files
// included: a file the checkout wrote before the index did) or in the index is not the tree's.
Result<std::set<std::string>> differing(git_repository* repo, git_tree* tree, std::vector<char*>& pathspec,
                                        Side side) {
  git_diff_options options;
  git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
  options.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH | GIT_DIFF_INCLUDE_UNTRACKED |
                  GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_INCLUDE_IGNORED | GIT_DIFF_RECURSE_IGNORED_DIRS;
  options.pathspec = {pathspec.data(), pathspec.size()};
  git_diff* diff = nullptr;
  const int rc = side == Side::work_tree ? git_diff_tree_to_workdir(&diff, repo, tree, &options)
                                         : git_diff_tree_to_index(&diff, repo, tree, nullptr, &options);
  if (rc != 0)
    return git_fail(ErrorCategory::io,
                    std::string("comparing the ") + (side == Side::work_tree ? "work tree" : "index"));
  DiffPtr owned(diff);
  return paths_of(diff);
}

struct CheckoutCall {
  const std::function<void()>* on_file;
};

void checkout_progress(const char* path, std::size_t, std::size_t, void* payload) {
  const auto* call = static_cast<const CheckoutCall*>(payload);
  if (path != nullptr && *call->on_file) (*call->on_file)();
}

}  // namespace

namespace {

// What bringing the work tree of the checked-out `ref` from `from` to `to` would touch: nullopt when
// nothing (another branch is checked out, or the two commits have the same tree).
struct WorktreeStep {
  std::string branch;
  TreePtr source;
  TreePtr target;
  std::vector<std::string> paths;  // where the two trees differ
  std::set<std::string> foreign;   // of those, the ones holding neither side's content
  bool at_target = true;
};

Result<std::optional<WorktreeStep>> inspect(git_repository* repo, const std::optional<std::string>& head,
                                            const std::string& ref, const std::string& from,
                                            const std::string& to) {
  if (!head || "refs/heads/" + *head != ref || from.empty() || to.empty() || from == to)
    return std::optional<WorktreeStep>();
  WorktreeStep step;
  step.branch = *head;
  auto source = tree_at(repo, from);
  if (!source) return tl::unexpected(source.error());
  step.source = std::move(*source);
  auto target = tree_at(repo, to);
  if (!target) return tl::unexpected(target.error());
  step.target = std::move(*target);
  auto paths = changed_paths(repo, step.source.get(), step.target.get());
  if (!paths) return tl::unexpected(paths.error());
  if (paths->empty()) return std::optional<WorktreeStep>();
  step.paths = std::move(*paths);
  std::vector<char*> pathspec;
  for (auto& path : step.paths) pathspec.push_back(path.data());
  // Each path must hold one side's version, in the work tree and in the index alike: a checkout
  // cut short leaves some files at `to` (the index is written last), anything else is someone's edit.
  for (const Side side : {Side::work_tree, Side::index}) {
    auto off_source = differing(repo, step.source.get(), pathspec, side);
    if (!off_source) return tl::unexpected(off_source.error());
    auto off_target = differing(repo, step.target.get(), pathspec, side);
    if (!off_target) return tl::unexpected(off_target.error());
    for (const auto& path : *off_target) {
      step.at_target = false;
      if (off_source->count(path) != 0) step.foreign.insert(path);
    }
  }
  return std::optional<WorktreeStep>(std::move(step));
}

Status refuse_foreign(const WorktreeStep& step, const std::string& from, const std::string& to) {
  if (step.foreign.empty()) return {};
  return fail(ErrorCategory::conflict,
              "the work tree of " + step.branch + " has changes in " +
                  core::join({step.foreign.begin(), step.foreign.end()}, ", ") + " that match neither " +
                  from.substr(0, 12) + " nor " + to.substr(0, 12) +
                  ", so relforge will not overwrite them; nothing in the work tree was changed. Save "
                  "those changes elsewhere, restore each file ('git checkout -- PATH', or delete it "
                  "when git does not track it), then run the command again");
}

}  // namespace

Status Repository::check_worktree(const std::string& ref, const std::string& from,
                                  const std::string& to) const {
  auto step = inspect(m_repo, head_branch(), ref, from, to);
  if (!step) return tl::unexpected(step.error());
  return *step ? refuse_foreign(**step, from, to) : Status{};
}

Status Repository::sync_worktree(const std::string& ref, const std::string& from, const std::string& to,
                                 const std::function<void()>& on_file) const {
  auto inspected = inspect(m_repo, head_branch(), ref, from, to);
  if (!inspected) return tl::unexpected(inspected.error());
  if (!*inspected) return {};
  WorktreeStep& step = **inspected;
  if (auto ok = refuse_foreign(step, from, to); !ok) return ok;
  if (step.at_target) return {};

  // Every listed path is one side's, so forcing the target over exactly those paths loses nothing;
  // the baseline `from` makes a file absent from `to` a deletion even when the index never listed it.
  std::vector<char*> pathspec;
  for (auto& path : step.paths) pathspec.push_back(path.data());
  git_checkout_options options;
  git_checkout_options_init(&options, GIT_CHECKOUT_OPTIONS_VERSION);
  options.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
  options.baseline = step.source.get();
  options.paths = {pathspec.data(), pathspec.size()};
  CheckoutCall call{&on_file};
  options.progress_cb = checkout_progress;
  options.progress_payload = &call;
  if (git_checkout_tree(m_repo, reinterpret_cast<const git_object*>(step.target.get()), &options) != 0)
    return git_fail(ErrorCategory::io,
                    "updating the work tree of " + step.branch + " to " + to.substr(0, 12));
  return {};
}

}  // namespace relforge::release
