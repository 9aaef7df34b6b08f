#include "release/git.hpp"

#include <string>
#include <vector>

#include "release/libgit2.hpp"

// The Repository operations that talk to a remote: push, list its refs, fetch one.
namespace relforge::release {
namespace {

using namespace libgit2;

int on_push_update(const char* refname, const char* status, void* data) {
  auto* report = static_cast<PushReport*>(data);
  if (status != nullptr)
    report->rejected.emplace_back(refname, status);
  else
    report->accepted.emplace_back(refname);
  return 0;
}

Result<RemotePtr> open_remote(git_repository* repo, const std::string& name) {
  git_remote* remote = nullptr;
  if (git_remote_lookup(&remote, repo, name.c_str()) != 0 &&
      git_remote_create_anonymous(&remote, repo, name.c_str()) != 0)
    return git_fail(ErrorCategory::invalid_input, "unknown remote '" + name + "'");
  return RemotePtr(remote);
}
}  // namespace

Result<PushReport> Repository::push_report(const std::string& remote_name,
                                           const std::vector<std::string>& refspecs) const {
  auto remote = open_remote(m_repo, remote_name);
  if (!remote) return tl::unexpected(remote.error());
  std::vector<char*> specs;
  for (const auto& spec : refspecs) specs.push_back(const_cast<char*>(spec.c_str()));
  git_strarray array{specs.data(), specs.size()};
  PushReport report;
  git_push_options options;
  git_push_options_init(&options, GIT_PUSH_OPTIONS_VERSION);
  options.callbacks.push_update_reference = on_push_update;
  options.callbacks.payload = &report;
  // One push: every refspec goes in a single receive-pack request (libgit2 does not ask for the
  // atomic capability; a pre-receive hook still accepts or refuses the request as a whole).
  if (const int rc = git_remote_push(remote->get(), &array, &options); rc != 0) {
    const std::string why = last_error();
    if (!report.accepted.empty()) {
      // The remote took these refs; what failed came after (the remote-tracking refs here).
      std::string accepted;
      for (const auto& ref : report.accepted) accepted += (accepted.empty() ? "" : ", ") + ref;
      return fail(ErrorCategory::io, "pushing to '" + remote_name + "': the remote accepted " + accepted +
                                         ", then the push failed here: " + why);
    }
    // The remote has commits we lack (not a fast-forward): a conflict, not a transport failure.
    const bool rejected_ref = rc == GIT_ENONFASTFORWARD || why.find("fast") != std::string::npos ||
                              why.find("not present locally") != std::string::npos ||
                              why.find("hook") != std::string::npos;
    const auto category = rejected_ref ? ErrorCategory::conflict : ErrorCategory::network;
    return fail(category, "pushing to '" + remote_name + "' failed: " + why);
  }
  return report;
}

Status Repository::push(const std::string& remote_name, const std::vector<std::string>& refspecs) const {
  auto report = push_report(remote_name, refspecs);
  if (!report) return with_context(Status(tl::unexpected(report.error())), "nothing was changed locally");
  if (!report->rejected.empty()) {
    std::string list;
    for (const auto& [ref, why] : report->rejected) list += (list.empty() ? "" : "; ") + ref + ": " + why;
    return fail(ErrorCategory::conflict, "the remote '" + remote_name + "' rejected: " + list);
  }
  return {};
}

Result<std::map<std::string, std::string>> Repository::remote_refs(const std::string& remote_name) const {
  auto remote = open_remote(m_repo, remote_name);
  if (!remote) return tl::unexpected(remote.error());
  git_remote_callbacks callbacks;
  git_remote_init_callbacks(&callbacks, GIT_REMOTE_CALLBACKS_VERSION);
  if (git_remote_connect(remote->get(), GIT_DIRECTION_FETCH, &callbacks, nullptr, nullptr) != 0)
    return git_fail(ErrorCategory::network, "connecting to '" + remote_name + "'");
  const git_remote_head** heads = nullptr;
  std::size_t count = 0;
  if (git_remote_ls(&heads, &count, remote->get()) != 0)
    return git_fail(ErrorCategory::network, "listing refs of '" + remote_name + "'");
  std::map<std::string, std::string> refs;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string name = heads[i]->name;
    if (name.ends_with("^{}")) continue;
    if (name.starts_with("refs/heads/") || name.starts_with("refs/tags/") ||
        name.starts_with("refs/relforge/"))
      refs[name] = oid_hex(heads[i]->oid);
  }
  git_remote_disconnect(remote->get());
  return refs;
}

Status Repository::fetch_ref(const std::string& remote_name, const std::string& remote_ref,
                             const std::string& local_ref) const {
  auto remote = open_remote(m_repo, remote_name);
  if (!remote) return tl::unexpected(remote.error());
  const std::string spec = "+" + remote_ref + ":" + local_ref;
  char* specs[] = {const_cast<char*>(spec.c_str())};
  git_strarray array{specs, 1};
  git_fetch_options options;
  git_fetch_options_init(&options, GIT_FETCH_OPTIONS_VERSION);
  if (git_remote_fetch(remote->get(), &array, &options, "relforge: fetch the release ledger") != 0)
    return git_fail(ErrorCategory::network, "fetching " + remote_ref + " from '" + remote_name + "'");
  return {};
}

}  // namespace relforge::release
