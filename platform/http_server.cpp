#include "platform/http_server.hpp"

#include <fcntl.h>
#include <httplib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <regex>
#include <thread>

#include "core/text.hpp"

namespace relforge::platform {

std::optional<std::string> HttpRequest::header(const std::string& lower_case_name) const {
  const auto it = headers.find(lower_case_name);
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> HttpRequest::query_value(const std::string& name) const {
  const auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return it->second;
}

HttpResponse HttpResponse::text(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

HttpResponse HttpResponse::json(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = std::move(body);
  return response;
}

namespace {

struct Route {
  std::string method;
  std::regex pattern;
  HttpHandler handler;
};

HttpRequest convert(const httplib::Request& in) {
  HttpRequest out;
  out.method = in.method;
  out.path = in.path;
  for (const auto& [name, value] : in.headers) out.headers.emplace(core::to_lower(name), value);
  for (const auto& [name, value] : in.params) out.query.emplace(name, value);
  out.body = in.body;
  out.remote_addr = in.remote_addr;
  return out;
}

// Streams the file in chunks so that serving a multi-gigabyte wheel needs constant memory.
void set_file_body(const HttpResponse& response, httplib::Response& out) {
  const int fd = ::open(response.file->c_str(), O_RDONLY | O_CLOEXEC);
  struct stat info {};
  if (fd < 0 || ::fstat(fd, &info) != 0) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    out.status = error == ENOENT ? 404 : 500;
    out.set_content("cannot open " + response.file->string() + ": " + std::strerror(error) + "\n",
                    "text/plain; charset=utf-8");
    return;
  }
  auto shared_fd = std::make_shared<int>(fd);
  out.set_content_provider(
      static_cast<std::size_t>(info.st_size), response.content_type,
      [shared_fd](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
        char buffer[1 << 16];
        const std::size_t want = std::min(length, sizeof buffer);
        const ssize_t n = ::pread(*shared_fd, buffer, want, static_cast<off_t>(offset));
        if (n <= 0) return false;  // the file shrank or failed: abort the connection
        return sink.write(buffer, static_cast<std::size_t>(n));
      },
      [shared_fd](bool) { ::close(*shared_fd); });
}

// httplib closes its listening socket only when a running accept loop is stopped; a server that
// was bound but never served would keep the port, so close that socket ourselves.
class Server : public httplib::Server {
public:
  void close_unserved_socket() {
    const auto sock = svr_sock_.exchange(INVALID_SOCKET);
    if (sock != INVALID_SOCKET) ::close(sock);
  }
  // httplib listens with a backlog of 5: a burst of new connections (webhook deliveries arrive
  // concurrently) overflows it and the kernel makes clients retry their SYN after 1 s, 3 s, ...
  // listen() again on the bound socket only raises the backlog.
  void widen_backlog() {
    const auto sock = svr_sock_.load();
    if (sock != INVALID_SOCKET) ::listen(sock, SOMAXCONN);
  }
};

}  // namespace

struct HttpServer::Impl {
  Server server;
  std::vector<Route> routes;
  bool bound = false;
  std::atomic<bool> serving{false};
  std::atomic<bool> stop_requested{false};

  void dispatch(const httplib::Request& in, httplib::Response& out) {
    const std::string method = in.method == "HEAD" ? "GET" : in.method;
    std::vector<std::string> allowed;
    for (const auto& route : routes) {
      std::smatch match;
      if (!std::regex_match(in.path, match, route.pattern)) continue;
      if (route.method != method) {
        allowed.push_back(route.method);
        continue;
      }
      HttpRequest request = convert(in);
      for (std::size_t i = 1; i < match.size(); ++i) request.matches.push_back(match[i].str());
      HttpResponse response;
      try {
        response = route.handler(request);
      } catch (const std::exception& e) {
        response = HttpResponse::text(500, std::string("internal server error: ") + e.what() + "\n");
      } catch (...) {
        response = HttpResponse::text(500, "internal server error\n");
      }
      out.status = response.status;
      for (const auto& [name, value] : response.headers) out.set_header(name, value);
      if (response.file) {
        set_file_body(response, out);
      } else {
        out.set_content(response.body, response.content_type);
      }
      return;
    }
    if (!allowed.empty()) {
      std::string allow;
      for (const auto& m : allowed) allow += (allow.empty() ? "" : ", ") + m;
      out.status = 405;
      out.set_header("Allow", allow);
      out.set_content("method " + in.method + " not allowed for " + in.path + "\n",
                      "text/plain; charset=utf-8");
      return;
    }
    out.status = 404;
    out.set_content("not found: " + in.path + "\n", "text/plain; charset=utf-8");
  }
};

HttpServer::HttpServer() : m_impl(std::make_unique<Impl>()) {
  auto* impl = m_impl.get();
  // One catch-all per method lets us answer 405 vs 404 and keep route order across methods.
  const auto handler = [impl](const httplib::Request& in, httplib::Response& out) {
    impl->dispatch(in, out);
  };
  impl->server.Get(".*", handler);
  impl->server.Post(".*", handler);
  impl->server.Put(".*", handler);
  impl->server.Patch(".*", handler);
  impl->server.Delete(".*", handler);
  impl->server.Options(".*", handler);
  // httplib's default also sets SO_REUSEPORT, which would let a second server silently share a
  // port that is in use; keep only SO_REUSEADDR (rebinding right after a restart).
  impl->server.set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Small responses must leave at once: with Nagle on, a keep-alive client's next request waits
  // for the delayed ACK of the previous response (~40 ms per request).
  impl->server.set_tcp_nodelay(true);
  // httplib closes a keep-alive connection after 5 requests by default; clients pipelining many
  // requests (CI bursts, load generators) would reconnect constantly.
  impl->server.set_keep_alive_max_count(10000);
  impl->server.set_exception_handler([](const httplib::Request&, httplib::Response& out, std::exception_ptr) {
    out.status = 500;
    out.set_content("internal server error\n", "text/plain; charset=utf-8");
  });
  // Error statuses produced by httplib itself (413, 400) get a readable body.
  impl->server.set_error_handler([](const httplib::Request&, httplib::Response& out) {
    if (out.body.empty() && !out.content_provider_) {
      const std::string text =
          out.status == 413 ? "request body too large\n" : "HTTP error " + std::to_string(out.status) + "\n";
      out.set_content(text, "text/plain; charset=utf-8");
    }
  });
}

HttpServer::~HttpServer() {
  stop();
  if (!m_impl->serving) m_impl->server.close_unserved_socket();
}

void HttpServer::route(const std::string& method, const std::string& path_regex, HttpHandler handler) {
  m_impl->routes.push_back({method, std::regex(path_regex), std::move(handler)});
}

void HttpServer::set_threads(std::size_t count) {
  m_impl->server.new_task_queue = [count] {
    return new httplib::ThreadPool(std::max<std::size_t>(1, count));
  };
}

void HttpServer::set_max_body_bytes(std::size_t limit) {
  m_impl->server.set_payload_max_length(limit);
}

Result<int> HttpServer::bind(const std::string& host, int port) {
  int bound_port = port;
  if (port == 0) {
    bound_port = m_impl->server.bind_to_any_port(host);
    if (bound_port < 0) bound_port = 0;
  } else if (!m_impl->server.bind_to_port(host, port)) {
    bound_port = 0;
  }
  if (bound_port <= 0) {
    return fail(ErrorCategory::io, "cannot listen on " + host + ":" + std::to_string(port) +
                                       " (is the port in use, or the address not local?)");
  }
  m_impl->server.widen_backlog();
  m_impl->bound = true;
  return bound_port;
}

Status HttpServer::serve() {
  if (!m_impl->bound) return fail(ErrorCategory::internal, "HttpServer::serve before bind");
  // serving is published before stop_requested is read, and stop() does the reverse, so one of
  // them always sees the other (see stop()).
  m_impl->serving = true;
  if (m_impl->stop_requested) {
    m_impl->serving = false;
    return {};
  }
  const bool ok = m_impl->server.listen_after_bind();
  m_impl->serving = false;
  if (!ok && !m_impl->stop_requested) {
    return fail(ErrorCategory::io, "the HTTP server stopped accepting connections unexpectedly");
  }
  return {};
}

void HttpServer::stop() {
  m_impl->stop_requested = true;
  // httplib ignores stop() until its accept loop runs, so wait for that when serve() is entering.
  while (m_impl->serving && !m_impl->server.is_running()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  m_impl->server.stop();
}

}  // namespace relforge::platform
