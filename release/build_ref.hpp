#pragma once
// Which ref a build of HEAD is for, and whether a ref named by --ref or $GITHUB_REF agrees with
// HEAD, so a build can never be labelled with the version of a ref it was not built from.
#include <string>

#include "core/error.hpp"
#include "release/git.hpp"

namespace relforge::release {

// A version tag at HEAD (the final vX.Y.Z before any vX.Y.Z-rcN, the highest version first), else
// "refs/heads/<branch>", else "HEAD" (detached); not_found when the repository has no commits.
Result<std::string> head_ref(const Repository& repo);

// invalid_input unless `ref` describes HEAD: a tag must point at HEAD, a branch (local or
// origin's) must contain HEAD, refs/pull/N/* must match its fetched copy when there is one.
Status check_ref_agrees_with_head(const Repository& repo, const std::string& ref, const std::string& from);

}  // namespace relforge::release
