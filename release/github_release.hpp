#pragma once
// The GitHub REST calls release notes need: a PR's labels, and creating or updating the GitHub
// Release of a tag (GET releases/tags/TAG, then PATCH it or POST a new one).
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::release {

struct GitHubApi {
  std::string url = "https://api.github.com";  // a loopback fake in tests
  std::string repo;                            // "owner/name"
  std::string token;                           // a token with contents:write; never printed
};

// Whether `repo` is "owner/name" in the characters GitHub allows (letters, digits, - _ .).
bool is_github_repo(std::string_view repo);

// The labels of issue/PR `number` (GET /repos/R/issues/N).
Result<std::vector<std::string>> pull_request_labels(const GitHubApi& api, int number);

struct GitHubRelease {
  std::string tag;
  std::string name;
  std::string body;  // Markdown
  bool prerelease = false;
  bool draft = false;
};

struct PublishedRelease {
  bool created = false;  // false: an existing release was updated
  long long id = 0;
  std::string html_url;
};

// Creates the release of `release.tag`, or updates the one that exists; auth errors and any
// status GitHub gives are named with what to do. A tag git would not accept, or a repo that is not
// owner/name, is invalid_input before any call; the tag is percent-encoded in the URL path.
Result<PublishedRelease> upsert_release(const GitHubApi& api, const GitHubRelease& release);

}  // namespace relforge::release
