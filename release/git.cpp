#include "release/git.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>

#include <git2.h>

#include "release/libgit2.hpp"

namespace relforge::release {

using namespace libgit2;

bool is_valid_branch_name(const std::string& name) {
  init_once();
  int branch_ok = 0, ref_ok = 0;
  const std::string ref = "refs/heads/" + name;
  return git_branch_name_is_valid(&branch_ok, name.c_str()) == 0 && branch_ok != 0 &&
         git_reference_name_is_valid(&ref_ok, ref.c_str()) == 0 && ref_ok != 0;
}

bool is_valid_tag_name(const std::string& name) {
  init_once();
  int ok = 0;
  const std::string ref = "refs/tags/" + name;
  return !name.empty() && name.front() != '-' && git_reference_name_is_valid(&ok, ref.c_str()) == 0 &&
         ok != 0;
}

Result<Repository> Repository::open(const std::filesystem::path& path) {
  init_once();
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, path.c_str(), 0, nullptr) != 0) {
    return fail(ErrorCategory::not_found, "'" + path.string() +
                                              "' is not inside a git repository: run relforge from the "
                                              "project's checkout or pass --repo DIR");
  }
  if (git_repository_is_bare(repo)) {
    git_repository_free(repo);
    return fail(ErrorCategory::invalid_input, "'" + path.string() + "' is a bare repository: use a checkout");
  }
  // libgit2 opened the repository by path, ignoring GIT_DIR; git (and a hook's git) would follow
  // GIT_DIR. Two tools acting on two repositories in one command is refused, not guessed at.
  if (const char* git_dir = std::getenv("GIT_DIR"); git_dir != nullptr && *git_dir != '\0') {
    const auto canonical = [](const std::filesystem::path& p) {
      std::error_code ec;
      auto out = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec);
      return out.has_filename() ? out : out.parent_path();  // "/x/.git/" and "/x/.git" are one
    };
    const auto named = canonical(git_dir);
    const auto opened = canonical(git_repository_path(repo));
    if (named != opened) {
      git_repository_free(repo);
      return fail(ErrorCategory::invalid_input,
                  "GIT_DIR names " + std::string(git_dir) + " but '" + path.string() +
                      "' is the repository " + opened.string() +
                      ": relforge acts on the repository --repo names and git on GIT_DIR; unset "
                      "GIT_DIR or point both at the same repository");
    }
  }
  return Repository(repo);
}

Repository::Repository(Repository&& other) noexcept : m_repo(std::exchange(other.m_repo, nullptr)) {}
Repository& Repository::operator=(Repository&& other) noexcept {
  if (this != &other) {
    if (m_repo != nullptr) git_repository_free(m_repo);
    m_repo = std::exchange(other.m_repo, nullptr);
  }
  return *this;
}
Repository::~Repository() {
  if (m_repo != nullptr) git_repository_free(m_repo);
}

std::filesystem::path Repository::workdir() const {
  return git_repository_workdir(m_repo);
}
std::filesystem::path Repository::state_dir() const {
  return std::filesystem::path(git_repository_commondir(m_repo)) / "relforge";
}

Result<std::string> Repository::resolve_commit(std::string_view spec) const {
  git_object* object = nullptr;
  const std::string text(spec);
  if (git_revparse_single(&object, m_repo, text.c_str()) != 0) {
    return fail(ErrorCategory::not_found, "unknown revision '" + text + "': no such commit, branch or tag");
  }
  ObjectPtr owned(object);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, object, GIT_OBJECT_COMMIT) != 0) {
    return fail(ErrorCategory::invalid_input, "'" + text + "' does not name a commit");
  }
  ObjectPtr peeled_owned(peeled);
  return oid_hex(*git_object_id(peeled));
}

Result<std::optional<std::string>> Repository::ref_target(const std::string& ref) const {
  git_oid oid;
  const int rc = git_reference_name_to_id(&oid, m_repo, ref.c_str());
  if (rc == GIT_ENOTFOUND) return std::optional<std::string>();
  if (rc != 0) return git_fail(ErrorCategory::io, "reading ref " + ref);
  git_object* object = nullptr;
  if (git_object_lookup(&object, m_repo, &oid, GIT_OBJECT_ANY) != 0) return git_fail(ErrorCategory::io, ref);
  ObjectPtr owned(object);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, object, GIT_OBJECT_COMMIT) != 0) return git_fail(ErrorCategory::io, ref);
  ObjectPtr peeled_owned(peeled);
  return std::optional<std::string>(oid_hex(*git_object_id(peeled)));
}

std::optional<std::string> Repository::head_branch() const {
  git_reference* head = nullptr;
  if (git_repository_head(&head, m_repo) != 0) return std::nullopt;
  RefPtr owned(head);
  if (!git_reference_is_branch(head)) return std::nullopt;
  return std::string(git_reference_shorthand(head));
}

std::vector<std::string> Repository::list_refs(const std::string& glob) const {
  std::vector<std::string> names;
  git_reference_iterator* iterator = nullptr;
  if (git_reference_iterator_glob_new(&iterator, m_repo, glob.c_str()) != 0) return names;
  const char* name = nullptr;
  while (git_reference_next_name(&name, iterator) == 0) names.emplace_back(name);
  git_reference_iterator_free(iterator);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> Repository::clashing_refs(const std::string& ref) const {
  std::vector<std::string> names;
  git_reference_iterator* iterator = nullptr;
  if (git_reference_iterator_new(&iterator, m_repo) != 0) return names;
  const char* name = nullptr;
  while (git_reference_next_name(&name, iterator) == 0) {
    const std::string_view other(name);
    const auto inside = [](std::string_view folder, std::string_view path) {
      return path.size() > folder.size() && path.starts_with(folder) && path[folder.size()] == '/';
    };
    if (inside(ref, other) || inside(other, ref)) names.emplace_back(other);
  }
  git_reference_iterator_free(iterator);
  std::sort(names.begin(), names.end());
  return names;
}

bool Repository::checked_out_elsewhere(const std::string& ref) const {
  git_reference* branch = nullptr;
  if (!ref.starts_with("refs/heads/") || git_reference_lookup(&branch, m_repo, ref.c_str()) != 0)
    return false;
  RefPtr owned(branch);
  // git_branch_is_checked_out counts this worktree's HEAD too; the move updates that one itself.
  const auto here = head_branch();
  return git_branch_is_checked_out(branch) == 1 && (!here || "refs/heads/" + *here != ref);
}

Result<std::optional<std::string>> Repository::read_file(const std::string& commit,
                                                         const std::string& path) const {
  auto c = lookup_commit(m_repo, commit);
  if (!c) return tl::unexpected(c.error());
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, c->get()) != 0) return git_fail(ErrorCategory::io, "reading tree of " + commit);
  TreePtr owned_tree(tree);
  git_tree_entry* entry = nullptr;
  if (git_tree_entry_bypath(&entry, tree, path.c_str()) != 0) return std::optional<std::string>();
  Owned<git_tree_entry, git_tree_entry_free> owned_entry(entry);
  if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return std::optional<std::string>();
  git_blob* blob = nullptr;
  if (git_blob_lookup(&blob, m_repo, git_tree_entry_id(entry)) != 0) return git_fail(ErrorCategory::io, path);
  Owned<git_blob, git_blob_free> owned_blob(blob);
  const auto* data = static_cast<const char*>(git_blob_rawcontent(blob));
  return std::optional<std::string>(std::string(data, static_cast<std::size_t>(git_blob_rawsize(blob))));
}

Result<std::vector<std::string>> Repository::list_files(const std::string& commit) const {
  auto c = lookup_commit(m_repo, commit);
  if (!c) return tl::unexpected(c.error());
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, c->get()) != 0) return git_fail(ErrorCategory::io, "reading tree of " + commit);
  TreePtr owned_tree(tree);
  std::vector<std::string> paths;
  const auto collect = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    const git_filemode_t mode = git_tree_entry_filemode(entry);
    if (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE)
      static_cast<std::vector<std::string>*>(payload)->push_back(std::string(root) +
                                                                 git_tree_entry_name(entry));
    return 0;
  };
  if (git_tree_walk(tree, GIT_TREEWALK_PRE, collect, &paths) != 0)
    return git_fail(ErrorCategory::io, "listing the files of " + commit);
  std::sort(paths.begin(), paths.end());
  return paths;
}

Result<std::vector<std::string>> Repository::export_files(const std::string& commit,
                                                          const std::filesystem::path& dir) const {
  auto paths = list_files(commit);
  if (!paths) return tl::unexpected(paths.error());
  auto c = lookup_commit(m_repo, commit);
  if (!c) return tl::unexpected(c.error());
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, c->get()) != 0) return git_fail(ErrorCategory::io, "reading tree of " + commit);
  TreePtr owned_tree(tree);
  for (const auto& path : *paths) {
    // A hostile tree could carry "..", "." or empty segments; refuse rather than write outside `dir`.
    const std::filesystem::path relative(path);
    for (const auto& part : relative) {
      if (part == ".." || part == "." || part.empty() || relative.is_absolute())
        return fail(ErrorCategory::integrity, "commit " + commit + " holds an unsafe path '" + path + "'");
    }
    git_tree_entry* entry = nullptr;
    if (git_tree_entry_bypath(&entry, tree, path.c_str()) != 0) return git_fail(ErrorCategory::io, path);
    Owned<git_tree_entry, git_tree_entry_free> owned_entry(entry);
    git_blob* blob = nullptr;
    if (git_blob_lookup(&blob, m_repo, git_tree_entry_id(entry)) != 0)
      return git_fail(ErrorCategory::io, path);
    Owned<git_blob, git_blob_free> owned_blob(blob);
    const auto target = dir / relative;
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(git_blob_rawcontent(blob)),
              static_cast<std::streamsize>(git_blob_rawsize(blob)));
    out.close();
    if (ec || !out) return fail(ErrorCategory::io, "writing " + target.string());
    if (git_tree_entry_filemode(entry) == GIT_FILEMODE_BLOB_EXECUTABLE) {
      std::filesystem::permissions(target,
                                   std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec,
                                   std::filesystem::perm_options::add, ec);
      if (ec) return fail(ErrorCategory::io, "making " + target.string() + " executable: " + ec.message());
    }
  }
  return paths;
}

Result<CommitInfo> Repository::commit_info(const std::string& commit) const {
  auto c = lookup_commit(m_repo, commit);
  if (!c) return tl::unexpected(c.error());
  const git_signature* author = git_commit_author(c->get());
  CommitInfo info;
  info.sha = commit;
  info.message = git_commit_message(c->get());
  info.author_name = author->name;
  info.author_email = author->email;
  info.author_time = author->when.time;
  info.author_offset = author->when.offset;
  for (unsigned i = 0; i < git_commit_parentcount(c->get()); ++i)
    info.parents.push_back(oid_hex(*git_commit_parent_id(c->get(), i)));
  return info;
}

Result<bool> Repository::is_descendant_or_equal(const std::string& commit,
                                                const std::string& ancestor) const {
  if (commit == ancestor) return true;
  auto a = parse_oid(commit);
  auto b = parse_oid(ancestor);
  if (!a || !b) return fail(ErrorCategory::internal, "bad object id");
  const int rc = git_graph_descendant_of(m_repo, &*a, &*b);
  if (rc < 0) return git_fail(ErrorCategory::io, "walking history");
  return rc == 1;
}

Result<std::vector<std::string>> Repository::dirty_paths() const {
  git_status_options options;
  git_status_options_init(&options, GIT_STATUS_OPTIONS_VERSION);
  options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  options.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  git_status_list* list = nullptr;
  if (git_status_list_new(&list, m_repo, &options) != 0) return git_fail(ErrorCategory::io, "reading status");
  Owned<git_status_list, git_status_list_free> owned(list);
  std::set<std::string> paths;
  for (std::size_t i = 0; i < git_status_list_entrycount(list); ++i) {
    const git_status_entry* entry = git_status_byindex(list, i);
    if (entry->status == GIT_STATUS_CURRENT || (entry->status & GIT_STATUS_IGNORED) != 0) continue;
    const git_diff_delta* delta =
        entry->head_to_index != nullptr ? entry->head_to_index : entry->index_to_workdir;
    if (delta != nullptr)
      paths.insert(delta->new_file.path != nullptr ? delta->new_file.path : delta->old_file.path);
  }
  return std::vector<std::string>(paths.begin(), paths.end());
}

Result<std::string> Repository::write_commit(const std::string& parent,
                                             const std::map<std::string, std::string>& files,
                                             const std::string& message) const {
  auto c = lookup_commit(m_repo, parent);
  if (!c) return tl::unexpected(c.error());
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, c->get()) != 0) return git_fail(ErrorCategory::io, "reading tree of " + parent);
  TreePtr owned_tree(tree);
  git_index* index = nullptr;
  if (git_index_new(&index) != 0) return git_fail(ErrorCategory::internal, "creating an index");
  IndexPtr owned_index(index);
  if (git_index_read_tree(index, tree) != 0) return git_fail(ErrorCategory::io, "reading tree");
  for (const auto& [path, content] : files) {
    git_oid blob;
    if (git_blob_create_from_buffer(&blob, m_repo, content.data(), content.size()) != 0)
      return git_fail(ErrorCategory::io, "writing " + path);
    git_index_entry entry;
    std::memset(&entry, 0, sizeof entry);
    const git_index_entry* existing = git_index_get_bypath(index, path.c_str(), 0);
    entry.mode = existing != nullptr ? existing->mode : static_cast<std::uint32_t>(GIT_FILEMODE_BLOB);
    entry.id = blob;
    entry.path = path.c_str();
    if (git_index_add(index, &entry) != 0) return git_fail(ErrorCategory::io, "staging " + path);
  }
  git_oid tree_id;
  if (git_index_write_tree_to(&tree_id, index, m_repo) != 0)
    return git_fail(ErrorCategory::io, "writing tree");
  git_tree* new_tree = nullptr;
  if (git_tree_lookup(&new_tree, m_repo, &tree_id) != 0) return git_fail(ErrorCategory::io, "reading tree");
  TreePtr owned_new(new_tree);
  auto sig = default_signature(m_repo);
  if (!sig) return tl::unexpected(sig.error());
  git_oid commit_id;
  const git_commit* parents[] = {c->get()};
  if (git_commit_create(&commit_id, m_repo, nullptr, sig->get(), sig->get(), nullptr, message.c_str(),
                        new_tree, 1, parents) != 0)
    return git_fail(ErrorCategory::io, "writing commit");
  return oid_hex(commit_id);
}

Result<CherryPick> Repository::cherry_pick(const std::string& commit, const std::string& onto) const {
  auto theirs = lookup_commit(m_repo, commit);
  if (!theirs) return tl::unexpected(theirs.error());
  auto ours = lookup_commit(m_repo, onto);
  if (!ours) return tl::unexpected(ours.error());
  if (git_commit_parentcount(theirs->get()) != 1) {
    return fail(
        ErrorCategory::invalid_input,
        "commit " + commit + " is a merge or a root commit: pick the single commit that landed on main");
  }
  git_index* index = nullptr;
  if (git_cherrypick_commit(&index, m_repo, theirs->get(), ours->get(), 0, nullptr) != 0)
    return git_fail(ErrorCategory::io, "cherry-picking " + commit);
  IndexPtr owned(index);
  CherryPick result;
  if (git_index_has_conflicts(index)) {
    git_index_conflict_iterator* iterator = nullptr;
    if (git_index_conflict_iterator_new(&iterator, index) != 0)
      return git_fail(ErrorCategory::io, "conflicts");
    std::set<std::string> paths;
    const git_index_entry *ancestor = nullptr, *our = nullptr, *their = nullptr;
    while (git_index_conflict_next(&ancestor, &our, &their, iterator) == 0) {
      const git_index_entry* any = our != nullptr ? our : their != nullptr ? their : ancestor;
      if (any != nullptr) paths.insert(any->path);
    }
    git_index_conflict_iterator_free(iterator);
    result.conflicts.assign(paths.begin(), paths.end());
    return result;
  }
  git_oid tree_id;
  if (git_index_write_tree_to(&tree_id, index, m_repo) != 0)
    return git_fail(ErrorCategory::io, "writing tree");
  result.tree = oid_hex(tree_id);
  return result;
}

Result<std::string> Repository::write_commit_with_tree(const std::string& parent, const std::string& tree,
                                                       const std::string& author_from,
                                                       const std::string& message) const {
  auto p = lookup_commit(m_repo, parent);
  if (!p) return tl::unexpected(p.error());
  auto original = lookup_commit(m_repo, author_from);
  if (!original) return tl::unexpected(original.error());
  auto tree_oid = parse_oid(tree);
  if (!tree_oid) return tl::unexpected(tree_oid.error());
  git_tree* t = nullptr;
  if (git_tree_lookup(&t, m_repo, &*tree_oid) != 0) return git_fail(ErrorCategory::io, "reading tree");
  TreePtr owned(t);
  auto committer = default_signature(m_repo);
  if (!committer) return tl::unexpected(committer.error());
  git_oid id;
  const git_commit* parents[] = {p->get()};
  if (git_commit_create(&id, m_repo, nullptr, git_commit_author(original->get()), committer->get(), nullptr,
                        message.c_str(), t, 1, parents) != 0)
    return git_fail(ErrorCategory::io, "writing commit");
  return oid_hex(id);
}

Status Repository::create_ref(const std::string& ref, const std::string& commit,
                              const std::string& log) const {
  auto oid = parse_oid(commit);
  if (!oid) return tl::unexpected(oid.error());
  git_reference* created = nullptr;
  const int rc = git_reference_create(&created, m_repo, ref.c_str(), &*oid, 0, log.c_str());
  if (rc == GIT_EEXISTS) return fail(ErrorCategory::conflict, ref + " already exists");
  if (rc != 0) return git_fail(ErrorCategory::io, "creating " + ref);
  git_reference_free(created);
  return {};
}

Result<std::pair<std::size_t, std::size_t>> Repository::ahead_behind(const std::string& local,
                                                                     const std::string& remote) const {
  auto a = parse_oid(local);
  auto b = parse_oid(remote);
  if (!a || !b) return fail(ErrorCategory::internal, "bad object id");
  std::size_t ahead = 0, behind = 0;
  if (git_graph_ahead_behind(&ahead, &behind, m_repo, &*a, &*b) != 0)
    return git_fail(ErrorCategory::not_found, "comparing " + local + " with " + remote);
  return std::pair{ahead, behind};
}

Result<std::optional<std::string>> Repository::ref_object(const std::string& ref) const {
  git_oid oid;
  const int rc = git_reference_name_to_id(&oid, m_repo, ref.c_str());
  if (rc == GIT_ENOTFOUND) return std::optional<std::string>();
  if (rc != 0) return git_fail(ErrorCategory::io, "reading ref " + ref);
  return std::optional<std::string>(oid_hex(oid));
}

Status Repository::update_ref(const std::string& ref, const std::string& expected, const std::string& target,
                              const std::string& log) const {
  const auto moved = [&] {
    auto now = ref_object(ref);
    const std::string at = now && *now ? now->value().substr(0, 12) : "nothing";
    return fail(ErrorCategory::conflict, ref + " is at " + at + ", not at " +
                                             (expected.empty() ? "nothing" : expected.substr(0, 12)) +
                                             " as planned: another run or a push moved it meanwhile");
  };
  if (target.empty()) {
    git_reference* found = nullptr;
    if (git_reference_lookup(&found, m_repo, ref.c_str()) != 0) return moved();
    RefPtr owned(found);
    const git_oid* at = git_reference_target(found);
    if (at == nullptr || oid_hex(*at) != expected) return moved();
    // git_reference_delete refuses when the ref changed since the lookup above.
    if (git_reference_delete(found) != 0) return moved();
    return {};
  }
  auto new_oid = parse_oid(target);
  if (!new_oid) return tl::unexpected(new_oid.error());
  git_reference* updated = nullptr;
  int rc = 0;
  if (expected.empty()) {
    rc = git_reference_create(&updated, m_repo, ref.c_str(), &*new_oid, 0, log.c_str());
  } else {
    auto old_oid = parse_oid(expected);
    if (!old_oid) return tl::unexpected(old_oid.error());
    rc = git_reference_create_matching(&updated, m_repo, ref.c_str(), &*new_oid, 1, &*old_oid, log.c_str());
  }
  if (rc == GIT_EEXISTS || rc == GIT_EMODIFIED) return moved();
  if (rc != 0) return git_fail(ErrorCategory::io, "updating " + ref);
  git_reference_free(updated);
  return {};
}

Result<std::vector<std::string>> Repository::commit_ids_between(const std::string& head,
                                                                const std::string& hide) const {
  auto from = parse_oid(head);
  auto without = parse_oid(hide);
  if (!from || !without) return fail(ErrorCategory::internal, "bad object id");
  git_revwalk* walk = nullptr;
  if (git_revwalk_new(&walk, m_repo) != 0) return git_fail(ErrorCategory::io, "walking history");
  Owned<git_revwalk, git_revwalk_free> owned(walk);
  if (git_revwalk_push(walk, &*from) != 0 || git_revwalk_hide(walk, &*without) != 0)
    return git_fail(ErrorCategory::io, "walking history");
  std::vector<std::string> commits;
  git_oid oid;
  while (git_revwalk_next(&oid, walk) == 0) commits.push_back(oid_hex(oid));
  return commits;
}

Result<std::string> Repository::identity() const {
  auto sig = default_signature(m_repo);
  if (!sig) return tl::unexpected(sig.error());
  return std::string(sig->get()->name) + " <" + sig->get()->email + ">";
}

Result<std::map<std::string, std::string>> Repository::read_top_files(const std::string& commit) const {
  auto c = lookup_commit(m_repo, commit);
  if (!c) return tl::unexpected(c.error());
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, c->get()) != 0) return git_fail(ErrorCategory::io, "reading tree of " + commit);
  TreePtr owned(tree);
  std::map<std::string, std::string> files;
  for (std::size_t i = 0; i < git_tree_entrycount(tree); ++i) {
    const git_tree_entry* entry = git_tree_entry_byindex(tree, i);
    if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) continue;
    git_blob* blob = nullptr;
    if (git_blob_lookup(&blob, m_repo, git_tree_entry_id(entry)) != 0)
      return git_fail(ErrorCategory::io, git_tree_entry_name(entry));
    Owned<git_blob, git_blob_free> owned_blob(blob);
    files[git_tree_entry_name(entry)] = std::string(static_cast<const char*>(git_blob_rawcontent(blob)),
                                                    static_cast<std::size_t>(git_blob_rawsize(blob)));
  }
  return files;
}

Result<std::string> Repository::write_tree_commit(const std::vector<std::string>& parents,
                                                  const std::map<std::string, std::string>& files,
                                                  const std::string& message) const {
  git_treebuilder* builder = nullptr;
  if (git_treebuilder_new(&builder, m_repo, nullptr) != 0)
    return git_fail(ErrorCategory::io, "building a tree");
  Owned<git_treebuilder, git_treebuilder_free> owned_builder(builder);
  for (const auto& [name, content] : files) {
    git_oid blob;
    if (git_blob_create_from_buffer(&blob, m_repo, content.data(), content.size()) != 0)
      return git_fail(ErrorCategory::io, "writing " + name);
    if (git_treebuilder_insert(nullptr, builder, name.c_str(), &blob, GIT_FILEMODE_BLOB) != 0)
      return git_fail(ErrorCategory::io, "adding " + name);
  }
  git_oid tree_id;
  if (git_treebuilder_write(&tree_id, builder) != 0) return git_fail(ErrorCategory::io, "writing tree");
  git_tree* tree = nullptr;
  if (git_tree_lookup(&tree, m_repo, &tree_id) != 0) return git_fail(ErrorCategory::io, "reading tree");
  TreePtr owned_tree(tree);
  std::vector<CommitPtr> owned_parents;
  std::vector<const git_commit*> parent_ptrs;
  for (const auto& parent : parents) {
    auto c = lookup_commit(m_repo, parent);
    if (!c) return tl::unexpected(c.error());
    parent_ptrs.push_back(c->get());
    owned_parents.push_back(std::move(*c));
  }
  auto sig = default_signature(m_repo);
  if (!sig) return tl::unexpected(sig.error());
  git_oid id;
  if (git_commit_create(&id, m_repo, nullptr, sig->get(), sig->get(), nullptr, message.c_str(), tree,
                        parent_ptrs.size(), parent_ptrs.data()) != 0)
    return git_fail(ErrorCategory::io, "writing commit");
  return oid_hex(id);
}

Result<std::string> Repository::tree_of(const std::string& commit) const {
  auto c = lookup_commit(m_repo, commit);
  if (!c) return tl::unexpected(c.error());
  return oid_hex(*git_commit_tree_id(c->get()));
}

Result<std::string> Repository::patch_id(const std::string& commit) const {
  auto c = lookup_commit(m_repo, commit);
  if (!c) return tl::unexpected(c.error());
  if (git_commit_parentcount(c->get()) != 1)
    return fail(ErrorCategory::invalid_input, "commit " + commit + " has no single parent");
  git_commit* parent = nullptr;
  if (git_commit_parent(&parent, c->get(), 0) != 0) return git_fail(ErrorCategory::io, "reading parent");
  CommitPtr owned_parent(parent);
  git_tree *old_tree = nullptr, *new_tree = nullptr;
  if (git_commit_tree(&old_tree, parent) != 0) return git_fail(ErrorCategory::io, "reading tree");
  TreePtr owned_old(old_tree);
  if (git_commit_tree(&new_tree, c->get()) != 0) return git_fail(ErrorCategory::io, "reading tree");
  TreePtr owned_new(new_tree);
  git_diff* diff = nullptr;
  if (git_diff_tree_to_tree(&diff, m_repo, old_tree, new_tree, nullptr) != 0)
    return git_fail(ErrorCategory::io, "diffing " + commit);
  Owned<git_diff, git_diff_free> owned_diff(diff);
  git_oid id;
  if (git_diff_patchid(&id, diff, nullptr) != 0) return git_fail(ErrorCategory::io, "patch id of " + commit);
  return oid_hex(id);
}

}  // namespace relforge::release
