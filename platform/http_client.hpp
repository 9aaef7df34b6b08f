#pragma once
// HTTP requests through libcurl (which stays private to platform/): one call per request, with a
// timeout, headers, a body (in memory or streamed from a file), the response status, headers and
// body (in memory or streamed to a file), and optional AWS SigV4 signing done by libcurl.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

struct HttpClientRequest {
  std::string method = "GET";  // GET, HEAD, PUT, POST, DELETE, ...
  std::string url{};
  std::vector<std::pair<std::string, std::string>> headers{};
  std::string body{};
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
  // When set, the body is streamed from this file (and `body` is ignored).
  std::optional<std::filesystem::path> body_file{};
  // When set, a 2xx response body is streamed into this file instead of `body`; other statuses
  // keep their (error) body in memory and leave the file untouched.
  std::optional<std::filesystem::path> response_file{};
  // The most body bytes taken from the answer, in memory or into response_file; 0: no limit. A
  // declared Content-Length over it stops the transfer before the body, a longer body as it passes.
  std::size_t max_body_bytes = 0;
  // libcurl's CURLOPT_AWS_SIGV4 provider, e.g. "aws:amz:us-east-1:s3"; empty: no signing. The
  // signature covers Host, Content-Type and every header given here; an X-Amz-Date header given
  // here fixes the signing time, and x-amz-content-sha256 given here is the signed payload hash.
  std::string aws_sigv4{};
  std::string user{};      // with aws_sigv4: the access key id
  std::string password{};  // with aws_sigv4: the secret access key
};

struct HttpClientResponse {
  long status = 0;
  std::multimap<std::string, std::string> headers{};  // names lower-cased
  std::string body{};

  std::optional<std::string> header(const std::string& lower_case_name) const;
};

// A transport failure (refused, timeout, DNS) is a network error; any HTTP status is a response.
// An unreadable body_file or unwritable response_file is an io error; a body over max_body_bytes is
// a network error naming the limit.
Result<HttpClientResponse> http_request(const HttpClientRequest& request);

}  // namespace relforge::platform
