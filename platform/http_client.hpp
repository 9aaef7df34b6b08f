#pragma once
// HTTP requests through libcurl (which stays private to platform/): one call per request, with a
// timeout, headers, a body, and the response status, headers and body as a value.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

struct HttpClientRequest {
  std::string method = "GET";
  std::string url{};
  std::vector<std::pair<std::string, std::string>> headers{};
  std::string body{};
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
};

struct HttpClientResponse {
  long status = 0;
  std::multimap<std::string, std::string> headers{};  // names lower-cased
  std::string body{};
};

// A transport failure (refused, timeout, DNS) is a network error; any HTTP status is a response.
Result<HttpClientResponse> http_request(const HttpClientRequest& request);

}  // namespace relforge::platform
