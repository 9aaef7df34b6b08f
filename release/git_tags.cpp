#include "release/git.hpp"

#include <string>

#include "release/libgit2.hpp"

// The Repository operations that make annotated tags: a tag ref, or a tag object alone.
namespace relforge::release {
namespace {

using namespace libgit2;

// What an annotated tag of `commit` needs: the commit as an object and who tags it.
struct TagInputs {
  ObjectPtr target;
  SigPtr tagger;
};

Result<TagInputs> tag_inputs(git_repository* repo, const std::string& commit) {
  git_object* target = nullptr;
  auto oid = parse_oid(commit);
  if (!oid) return tl::unexpected(oid.error());
  if (git_object_lookup(&target, repo, &*oid, GIT_OBJECT_COMMIT) != 0)
    return git_fail(ErrorCategory::not_found, commit);
  ObjectPtr owned(target);
  auto sig = default_signature(repo);
  if (!sig) return tl::unexpected(sig.error());
  return TagInputs{std::move(owned), std::move(*sig)};
}

}  // namespace

Status Repository::create_annotated_tag(const std::string& name, const std::string& commit,
                                        const std::string& message) const {
  auto inputs = tag_inputs(m_repo, commit);
  if (!inputs) return tl::unexpected(inputs.error());
  git_oid tag_id;
  const int rc = git_tag_create(&tag_id, m_repo, name.c_str(), inputs->target.get(), inputs->tagger.get(),
                                message.c_str(), 0);
  if (rc == GIT_EEXISTS) return fail(ErrorCategory::conflict, "tag " + name + " already exists");
  if (rc != 0) return git_fail(ErrorCategory::io, "creating tag " + name);
  return {};
}

Result<std::string> Repository::write_tag_object(const std::string& name, const std::string& commit,
                                                 const std::string& message) const {
  auto inputs = tag_inputs(m_repo, commit);
  if (!inputs) return tl::unexpected(inputs.error());
  git_oid tag_id;
  if (git_tag_annotation_create(&tag_id, m_repo, name.c_str(), inputs->target.get(), inputs->tagger.get(),
                                message.c_str()) != 0)
    return git_fail(ErrorCategory::io, "writing tag " + name);
  return oid_hex(tag_id);
}

}  // namespace relforge::release
