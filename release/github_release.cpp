#include "release/github_release.hpp"

#include <cctype>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "platform/http_client.hpp"
#include "release/git.hpp"

namespace relforge::release {
namespace {

using Json = nlohmann::json;

// The answers read here are one release or one tag: JSON documents of a few kilobytes.
constexpr std::size_t k_max_answer_bytes = std::size_t{16} << 20;

Result<platform::HttpClientResponse> call(const GitHubApi& api, const std::string& method,
                                          const std::string& path, const std::string& body = {}) {
  if (!is_github_repo(api.repo))
    return fail(ErrorCategory::invalid_input, "'" + api.repo + "' is not a GitHub repository (owner/name)");
  platform::HttpClientRequest request;
  request.method = method;
  request.url = api.url + "/repos/" + api.repo + path;
  request.headers = {{"Accept", "application/vnd.github+json"},
                     {"X-GitHub-Api-Version", "2022-11-28"},
                     {"User-Agent", "relforge"}};
  if (!api.token.empty()) request.headers.emplace_back("Authorization", "Bearer " + api.token);
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  request.body = body;
  request.max_body_bytes = k_max_answer_bytes;
  auto response = platform::http_request(request);
  if (!response) return tl::unexpected(response.error().with_context(method + " " + request.url));
  if (response->status == 401 || response->status == 403) {
    return fail(ErrorCategory::auth,
                method + " " + request.url + ": HTTP " + std::to_string(response->status) +
                    "; the token is missing, expired or lacks contents:write on " + api.repo);
  }
  return response;
}

Error unexpected_status(const std::string& what, const platform::HttpClientResponse& response) {
  std::string message;
  try {
    message = Json::parse(response.body).value("message", "");
  } catch (const Json::exception&) {
    message = response.body.substr(0, 200);
  }
  return Error(ErrorCategory::network, what + ": GitHub answered HTTP " + std::to_string(response.status) +
                                           (message.empty() ? "" : ": " + message));
}

Result<Json> json_body(const std::string& what, const platform::HttpClientResponse& response) {
  try {
    return Json::parse(response.body);
  } catch (const Json::exception& e) {
    return fail(ErrorCategory::network,
                what + ": GitHub's answer is not JSON (" + std::string(e.what()) + ")");
  }
}

}  // namespace

bool is_github_repo(std::string_view repo) {
  const auto slash = repo.find('/');
  if (slash == std::string_view::npos) return false;
  for (const auto part : {repo.substr(0, slash), repo.substr(slash + 1)}) {
    if (part.empty() || part == "." || part == "..") return false;
    for (const char c : part) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
    }
  }
  return true;
}

Result<std::vector<std::string>> pull_request_labels(const GitHubApi& api, int number) {
  const std::string what = "labels of " + api.repo + "#" + std::to_string(number);
  auto response = call(api, "GET", "/issues/" + std::to_string(number));
  if (!response) return tl::unexpected(response.error());
  if (response->status == 404) return std::vector<std::string>{};  // a number that is no PR: no labels
  if (response->status != 200) return tl::unexpected(unexpected_status(what, *response));
  auto body = json_body(what, *response);
  if (!body) return tl::unexpected(body.error());
  std::vector<std::string> labels;
  if (body->contains("labels") && (*body)["labels"].is_array()) {
    for (const auto& label : (*body)["labels"]) {
      if (label.is_object() && label.contains("name") && label["name"].is_string())
        labels.push_back(label["name"].get<std::string>());
    }
  }
  return labels;
}

Result<PublishedRelease> upsert_release(const GitHubApi& api, const GitHubRelease& release) {
  if (!is_valid_tag_name(release.tag))
    return fail(ErrorCategory::invalid_input, "'" + release.tag + "' is not a tag name git accepts");
  const std::string what = "the GitHub Release of " + release.tag + " in " + api.repo;
  // One path segment whatever the tag holds ('#', '?', '/', '%' included).
  auto existing = call(api, "GET", "/releases/tags/" + core::percent_encode(release.tag));
  if (!existing) return tl::unexpected(existing.error());
  if (existing->status != 200 && existing->status != 404)
    return tl::unexpected(unexpected_status(what, *existing));
  const Json payload{{"tag_name", release.tag},
                     {"name", release.name},
                     {"body", release.body},
                     {"prerelease", release.prerelease},
                     {"draft", release.draft}};
  PublishedRelease out;
  Result<platform::HttpClientResponse> answer = fail(ErrorCategory::internal, "no call made");
  if (existing->status == 200) {
    auto current = json_body(what, *existing);
    if (!current) return tl::unexpected(current.error());
    if (!current->contains("id") || !(*current)["id"].is_number_integer())
      return fail(ErrorCategory::network, what + ": GitHub's release has no id");
    answer =
        call(api, "PATCH", "/releases/" + std::to_string((*current)["id"].get<long long>()), payload.dump());
  } else {
    out.created = true;
    answer = call(api, "POST", "/releases", payload.dump());
  }
  if (!answer) return tl::unexpected(answer.error());
  if (answer->status != (out.created ? 201 : 200)) return tl::unexpected(unexpected_status(what, *answer));
  auto body = json_body(what, *answer);
  if (!body) return tl::unexpected(body.error());
  out.id = body->value("id", 0LL);
  out.html_url = body->value("html_url", "");
  return out;
}

}  // namespace relforge::release
