#pragma once
// Which tags a registry has: Docker Registry HTTP API v2, `HEAD /v2/<repository>/manifests/<tag>`
// with the OCI and Docker manifest media types. Every failure is an answer (status unknown).
#include <chrono>
#include <string>
#include <string_view>

namespace relforge::runner_images {

enum class TagStatus { unchecked, present, missing, unknown };
std::string_view status_name(TagStatus status);

struct TagAnswer {
  TagStatus status = TagStatus::unchecked;
  std::string digest;   // Docker-Content-Digest when present ("sha256:...")
  std::string problem;  // why the status is unknown (401, 5xx, unreachable)
  long http_status = 0;
};

// The repository path inside a registry: the name without a leading registry host
// ("ghcr.io/org/img" → "org/img"; a first part with '.' or ':' or "localhost" is a host).
std::string repository_path(std::string_view name);

// Asks `registry_url` (e.g. https://ghcr.io or http://127.0.0.1:5000) about name:tag.
TagAnswer check_tag(std::string_view registry_url, std::string_view name, std::string_view tag,
                    std::chrono::milliseconds timeout = std::chrono::seconds(15));

}  // namespace relforge::runner_images
