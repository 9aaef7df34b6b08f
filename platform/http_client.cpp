#include "platform/http_client.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>

#include "core/text.hpp"

namespace relforge::platform {
namespace {

// curl_global_init is not thread-safe and must run once before any other curl call.
void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* headers = static_cast<std::multimap<std::string, std::string>*>(user);
  const std::string_view line(data, size * count);
  // A new status line starts a new header block (after 100 Continue or a redirect): keep only
  // the final response's headers.
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
  } else if (const auto colon = line.find(':'); colon != std::string_view::npos) {
    headers->emplace(core::to_lower(core::trim(line.substr(0, colon))),
                     std::string(core::trim(line.substr(colon + 1))));
  }
  return size * count;
}

struct CurlDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

}  // namespace

Result<HttpClientResponse> http_request(const HttpClientRequest& request) {
  global_init();
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return fail(ErrorCategory::internal, "cannot initialise libcurl");
  CURL* h = curl.get();

  HttpClientResponse response;
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for timeouts: we run in threads
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");

  if (request.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET" || !request.body.empty()) {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (!request.body.empty() || request.method == "POST" || request.method == "PUT") {
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
    }
  }

  curl_slist* raw_list = nullptr;
  const auto append = [&raw_list](const std::string& line) {
    if (curl_slist* head = curl_slist_append(raw_list, line.c_str())) raw_list = head;
  };
  // "Expect: 100-continue" would cost a round trip (or a 1 s stall) on every large upload.
  bool has_expect = false;
  bool has_content_type = false;
  for (const auto& [name, value] : request.headers) {
    const std::string lower = core::to_lower(name);
    has_expect = has_expect || lower == "expect";
    has_content_type = has_content_type || lower == "content-type";
    // "Name;" is curl's spelling for a header with an empty value.
    const std::string line = value.empty() ? name + ";" : name + ": " + value;
    append(line);
  }
  if (!has_expect) {
    append("Expect:");
  }
  if (!has_content_type && !request.body.empty()) {
    // curl would otherwise claim application/x-www-form-urlencoded for raw bytes.
    append("Content-Type: application/octet-stream");
  }
  const std::unique_ptr<curl_slist, SlistDeleter> list(raw_list);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, raw_list);

  const CURLcode code = curl_easy_perform(h);
  if (code != CURLE_OK) {
    const std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
    return fail(ErrorCategory::network,
                request.method + " " + request.url + " failed: " + detail + " (is the server reachable?)");
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace relforge::platform
