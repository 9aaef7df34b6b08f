#pragma once
// A small HTTP/1.1 server (cpp-httplib underneath, which stays private to platform/): routes by
// method and path regex, a body size limit, streaming file responses, loopback-friendly binding.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

struct HttpRequest {
  std::string method{};
  std::string path{};                                 // decoded path, without the query
  std::vector<std::string> matches{};                 // regex capture groups of the route
  std::multimap<std::string, std::string> headers{};  // names lower-cased
  std::multimap<std::string, std::string> query{};
  std::string body{};  // raw bytes, exactly as received
  std::string remote_addr{};

  std::optional<std::string> header(const std::string& lower_case_name) const;
  std::optional<std::string> query_value(const std::string& name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body{};
  std::vector<std::pair<std::string, std::string>> headers{};
  std::optional<std::filesystem::path> file{};  // when set, the file is streamed as the body

  static HttpResponse text(int status, std::string body);
  static HttpResponse json(int status, std::string body);
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpServer {
public:
  HttpServer();
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // `path_regex` must match the whole path; capture groups land in HttpRequest::matches.
  // Register every route before serve(). A path matched only under other methods gets 405.
  void route(const std::string& method, const std::string& path_regex, HttpHandler handler);
  void set_max_body_bytes(std::size_t limit);  // larger bodies get 413 before any handler runs
  // Request threads (default 8); a keep-alive connection holds one while it is open.
  void set_threads(std::size_t count);

  // Binds `host:port` (port 0 picks a free port) and returns the bound port.
  Result<int> bind(const std::string& host, int port);
  // Serves until stop() is called (from another thread or a signal handler's thread).
  Status serve();
  void stop();

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace relforge::platform
