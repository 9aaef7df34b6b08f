#include "ci_relay/github_comment.hpp"

#include "ci_relay/json_fields.hpp"
#include "platform/http_client.hpp"
#include "triage/pr.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

constexpr int k_per_page = 100;
constexpr int k_max_pages = 100;  // 10,000 comments: past that, a new comment is posted
// A page of 100 comments at GitHub's maximum of 65,536 characters each, escaped, fits in 64 MiB.
constexpr std::size_t k_max_answer_bytes = std::size_t{64} << 20;

Result<platform::HttpClientResponse> call(const GitHubTarget& target, const std::string& method,
                                          const std::string& path, const std::string& body = {}) {
  platform::HttpClientRequest request;
  request.method = method;
  request.url = target.api_base + "/repos/" + target.repo + path;
  request.headers = {{"Accept", "application/vnd.github+json"},
                     {"X-GitHub-Api-Version", "2022-11-28"},
                     {"User-Agent", "relforge"},
                     {"Authorization", "Bearer " + target.token}};
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  request.body = body;
  request.max_body_bytes = k_max_answer_bytes;
  auto response = platform::http_request(request);
  if (!response) return tl::unexpected(response.error().with_context(method + " " + request.url));
  if (response->status == 401 || response->status == 403) {
    return fail(ErrorCategory::auth, method + " " + request.url + ": GitHub answered HTTP " +
                                         std::to_string(response->status) +
                                         ": the token is missing, expired or may not write pull request "
                                         "comments on " +
                                         target.repo + " (it needs issues or pull-requests: write)");
  }
  return response;
}

Error unexpected_status(const std::string& what, const platform::HttpClientResponse& response) {
  const json body = json::parse(response.body, nullptr, false);
  const std::string message = body.is_object() ? text_field(body, "message") : response.body.substr(0, 200);
  return Error(ErrorCategory::network, what + ": GitHub answered HTTP " + std::to_string(response.status) +
                                           (message.empty() ? "" : ": " + message));
}

}  // namespace

std::optional<std::int64_t> find_marked_comment(const json& page) {
  if (!page.is_array()) return std::nullopt;
  for (const auto& comment : page) {
    const std::string body = text_field(comment, "body");
    if (body.rfind(triage::k_pr_comment_marker, 0) != 0) continue;
    const std::string association = text_field(comment, "author_association");
    const bool trusted = text_field(field(comment, "user"), "type") == "Bot" || association == "OWNER" ||
                         association == "MEMBER" || association == "COLLABORATOR";
    if (auto id = int_field(comment, "id"); trusted && id) return id;
  }
  return std::nullopt;
}

Result<PostedComment> upsert_pr_comment(const GitHubTarget& target, std::int64_t number,
                                        const std::string& body) {
  if (target.repo.find('/') == std::string::npos)
    return fail(ErrorCategory::invalid_input,
                "'" + target.repo + "' is not a GitHub repository (owner/name)");
  if (target.token.empty())
    return fail(ErrorCategory::auth, "no GitHub token: set $GITHUB_TOKEN to a token that may comment on " +
                                         target.repo + " pull requests");
  const std::string what = "the triage comment on " + target.repo + "#" + std::to_string(number);
  const std::string comments = "/issues/" + std::to_string(number) + "/comments";
  std::optional<std::int64_t> existing;
  for (int page = 1; page <= k_max_pages && !existing; ++page) {
    auto listed =
        call(target, "GET",
             comments + "?per_page=" + std::to_string(k_per_page) + "&page=" + std::to_string(page));
    if (!listed) return tl::unexpected(listed.error());
    if (listed->status == 404)
      return fail(ErrorCategory::not_found,
                  what + ": GitHub knows no pull request #" + std::to_string(number) + " in " + target.repo);
    if (listed->status != 200) return tl::unexpected(unexpected_status(what, *listed));
    const json items = json::parse(listed->body, nullptr, false);
    if (!items.is_array())
      return fail(ErrorCategory::network, what + ": GitHub's comment list is not a JSON array");
    existing = find_marked_comment(items);
    if (items.size() < static_cast<std::size_t>(k_per_page)) break;
  }
  const std::string payload = json{{"body", body}}.dump(-1, ' ', false, json::error_handler_t::replace);
  PostedComment out;
  out.created = !existing;
  auto answer = existing ? call(target, "PATCH", "/issues/comments/" + std::to_string(*existing), payload)
                         : call(target, "POST", comments, payload);
  if (!answer) return tl::unexpected(answer.error());
  if (answer->status != (out.created ? 201 : 200)) return tl::unexpected(unexpected_status(what, *answer));
  const json written = json::parse(answer->body, nullptr, false);
  out.id = int_field(written, "id").value_or(existing.value_or(0));
  out.html_url = text_field(written, "html_url");
  return out;
}

}  // namespace relforge::ci_relay
