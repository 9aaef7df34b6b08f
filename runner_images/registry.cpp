// The manifest probe. HEAD, not GET: the registry answers with the digest without sending the
// manifest, and registries that count pulls do not count a HEAD.
#include "runner_images/registry.hpp"

#include "platform/http_client.hpp"

namespace relforge::runner_images {
namespace {

const char* const k_accept =
    "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json, "
    "application/vnd.docker.distribution.manifest.v2+json";

}  // namespace

std::string_view status_name(TagStatus status) {
  switch (status) {
    case TagStatus::unchecked:
      return "unchecked";
    case TagStatus::present:
      return "present";
    case TagStatus::missing:
      return "missing";
    case TagStatus::unknown:
      return "unknown";
  }
  return "unknown";
}

std::string repository_path(std::string_view name) {
  const auto slash = name.find('/');
  if (slash == std::string_view::npos) return std::string(name);
  const auto first = name.substr(0, slash);
  if (first.find('.') != std::string_view::npos || first.find(':') != std::string_view::npos ||
      first == "localhost")
    return std::string(name.substr(slash + 1));
  return std::string(name);
}

TagAnswer check_tag(std::string_view registry_url, std::string_view name, std::string_view tag,
                    std::chrono::milliseconds timeout) {
  std::string base(registry_url);
  while (!base.empty() && base.back() == '/') base.pop_back();
  platform::HttpClientRequest request;
  request.method = "HEAD";
  request.url = base + "/v2/" + repository_path(name) + "/manifests/" + std::string(tag);
  request.headers = {{"Accept", k_accept}};
  request.timeout = timeout;
  TagAnswer answer;
  auto response = platform::http_request(request);
  if (!response) {
    answer.status = TagStatus::unknown;
    answer.problem = "registry unreachable: " + response.error().message();
    return answer;
  }
  answer.http_status = response->status;
  if (response->status == 200) {
    answer.status = TagStatus::present;
    if (auto found = response->headers.find("docker-content-digest"); found != response->headers.end())
      answer.digest = found->second;
    return answer;
  }
  if (response->status == 404) {
    answer.status = TagStatus::missing;
    return answer;
  }
  answer.status = TagStatus::unknown;
  if (response->status == 401 || response->status == 403) {
    answer.problem = "the registry answered " + std::to_string(response->status) + " for " + request.url +
                     ": credentials are missing or not allowed to read " + repository_path(name) +
                     " (log in, or use a registry URL that allows anonymous reads)";
  } else {
    answer.problem = "the registry answered " + std::to_string(response->status) + " for " + request.url +
                     (response->status >= 500 ? ": a server error; try again later" : "");
  }
  return answer;
}

}  // namespace relforge::runner_images
