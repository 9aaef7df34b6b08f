#pragma once
// A small HTTP/1.1 server (cpp-httplib parses; the connections, limits and timeouts are ours):
// routes by method and path regex (RE2: linear time), bounded heads and bodies (chunked included),
// per-connection deadlines, streaming file responses with single byte ranges, loopback-friendly binding.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "platform/open_beneath.hpp"

namespace relforge::platform {

struct HttpRequest {
  std::string method{};
  std::string path{};                                 // decoded path, without the query
  std::string target{};                               // the request target exactly as sent
  std::vector<std::string> matches{};                 // capture groups of the route's pattern
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
  // When set (and the status is 200), the file is the body: streamed, Accept-Ranges: bytes, and a
  // single satisfiable Range gets 206 (416 when unsatisfiable). `file` is opened when answering.
  std::shared_ptr<const OpenEntry> open_file{};
  std::optional<std::filesystem::path> file{};

  static HttpResponse text(int status, std::string body);
  static HttpResponse json(int status, std::string body);
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// What one connection may cost. A client that breaks a limit gets its status and the connection
// is closed; one that misses a deadline is dropped.
struct HttpLimits {
  std::chrono::milliseconds idle_timeout{5000};     // keep-alive: the next request must start by then
  std::chrono::milliseconds header_timeout{10000};  // the whole request line and header fields
  std::chrono::milliseconds body_timeout{60000};    // the whole request body
  std::chrono::milliseconds write_timeout{30000};   // a response write that makes no progress
  std::size_t max_request_line = 8192;              // 414 beyond (CRLF included; at most 8192)
  std::size_t max_head_bytes = 32768;               // request line + fields; 431 beyond
  // The path (without the query); 414 beyond. Route patterns are RE2 (linear time, no
  // recursion), so the bound is about what a sane client sends, not about the matcher.
  std::size_t max_path_bytes = 2048;
  std::size_t max_requests_per_connection = 10000;
  // Connections waiting for a request (or sending one); at the limit a new one makes the one that
  // has waited longest close. Their buffered bytes together: beyond this, 503 and close.
  std::size_t max_connections = 512;
  // Of those, from one client address (an IPv6 client's /64): at this, a new one makes that
  // client's longest-waiting close, so one client cannot push the others out. 0: no limit (behind
  // a proxy, every connection comes from the proxy's address).
  std::size_t max_connections_per_client = 64;
  std::size_t max_gathered_bytes = std::size_t{256} << 20;
  // Answer bytes a slow reader has not taken, held so that its request thread can go on: all
  // connections together. A slow reader whose answer does not fit is disconnected, so that no
  // request thread ever waits on one.
  std::size_t max_unsent_bytes = std::size_t{256} << 20;
};

class HttpServer {
public:
  HttpServer();
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // `path_regex` (RE2 syntax, bytes as Latin-1) must match the whole decoded path; capture groups
  // land in HttpRequest::matches. A pattern RE2 rejects throws std::invalid_argument (a bug).
  // Register every route before serve(). A path matched only under other methods gets 405 with
  // Allow (HEAD is taken wherever GET is), before any body is read.
  void route(const std::string& method, const std::string& path_regex, HttpHandler handler);
  // Larger bodies get 413 before any handler runs: by Content-Length before a byte of the body
  // is read, chunked ones as soon as the count passes the limit (never buffering beyond it).
  // Default: no limit (set one on every server that faces untrusted clients).
  void set_max_body_bytes(std::size_t limit);
  void set_limits(const HttpLimits& limits);
  // Request threads (default 8): each answers one whole request at a time. Connections waiting
  // for a request, or still sending one, hold none.
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
