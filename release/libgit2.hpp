#pragma once
// What release/git*.cpp share over libgit2: owning handles, its error text, object ids, commit
// lookup and the committer's identity. Private to the release module.
#include <memory>
#include <mutex>
#include <string>

#include <git2.h>

#include "core/error.hpp"

namespace relforge::release::libgit2 {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
template <typename T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Deleter<T, Free>>;

using CommitPtr = Owned<git_commit, git_commit_free>;
using TreePtr = Owned<git_tree, git_tree_free>;
using IndexPtr = Owned<git_index, git_index_free>;
using RefPtr = Owned<git_reference, git_reference_free>;
using SigPtr = Owned<git_signature, git_signature_free>;
using ObjectPtr = Owned<git_object, git_object_free>;
using RemotePtr = Owned<git_remote, git_remote_free>;

inline void init_once() {
  static std::once_flag flag;
  std::call_once(flag, [] { git_libgit2_init(); });
}

inline std::string last_error() {
  const git_error* error = git_error_last();
  std::string text = error != nullptr && error->message != nullptr ? error->message : "unknown libgit2 error";
  // libgit2 ends some messages with ": " and no system error after it.
  while (text.ends_with(": ") || text.ends_with(':') || text.ends_with(' ')) text.pop_back();
  if (text.starts_with("failed to lock file"))
    text +=
        " (another git process holds it, or one was stopped while holding it: remove that .lock "
        "file once no git command is running)";
  return text;
}

inline tl::unexpected<Error> git_fail(ErrorCategory category, const std::string& what) {
  return fail(category, what + ": " + last_error());
}

inline std::string oid_hex(const git_oid& oid) {
  char buffer[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buffer, sizeof buffer, &oid);
  return buffer;
}

inline Result<git_oid> parse_oid(const std::string& hex) {
  git_oid oid;
  if (git_oid_fromstr(&oid, hex.c_str()) != 0)
    return fail(ErrorCategory::internal, "not a full object id: " + hex);
  return oid;
}

inline Result<CommitPtr> lookup_commit(git_repository* repo, const std::string& sha) {
  auto oid = parse_oid(sha);
  if (!oid) return tl::unexpected(oid.error());
  git_commit* commit = nullptr;
  if (git_commit_lookup(&commit, repo, &*oid) != 0)
    return git_fail(ErrorCategory::not_found, "no commit " + sha);
  return CommitPtr(commit);
}

inline Result<SigPtr> default_signature(git_repository* repo) {
  git_signature* sig = nullptr;
  if (git_signature_default(&sig, repo) != 0) {
    return fail(ErrorCategory::invalid_input,
                "git has no identity for commits and tags: set user.name and user.email (git config)");
  }
  return SigPtr(sig);
}

}  // namespace relforge::release::libgit2
