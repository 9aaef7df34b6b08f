#pragma once
// The one PR comment the relay and `triage pr --post` keep on a pull request: found again by its
// marker (triage::k_pr_comment_marker) among the PR's issue comments and updated, or created.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace relforge::ci_relay {

struct GitHubTarget {
  std::string api_base = "https://api.github.com";
  std::string repo;   // owner/name
  std::string token;  // never printed
};

struct PostedComment {
  bool created = false;  // false: the existing comment was updated
  std::int64_t id = 0;
  std::string html_url;
};

// The id of the comment to update in one page of GitHub's issue comments: the first whose body
// starts with the marker and whose author is a bot or the repository's owner, member or
// collaborator (a contributor who pastes the marker does not capture the comment).
std::optional<std::int64_t> find_marked_comment(const nlohmann::json& page);

// Lists the comments (every page), then PATCHes the marked one or POSTs a new one. 401/403 are
// auth errors naming the token; a missing PR is not_found; other answers are network errors.
Result<PostedComment> upsert_pr_comment(const GitHubTarget& target, std::int64_t number,
                                        const std::string& body);

}  // namespace relforge::ci_relay
