#include "platform/http_server.hpp"

#include <fcntl.h>
#include <httplib.h>
#include <re2/re2.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>

#include "core/text.hpp"
#include "platform/http_connection.hpp"
#include "platform/http_gate.hpp"
#include "platform/http_range.hpp"

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
  std::unique_ptr<const re2::RE2> pattern;
  HttpHandler handler;
};

// Whether `path` matches the whole of `pattern`; fills `groups` (when given) with the captures.
bool full_match(const re2::RE2& pattern, const std::string& path, std::vector<std::string>* groups) {
  std::vector<re2::StringPiece> found(groups ? static_cast<std::size_t>(pattern.NumberOfCapturingGroups()) + 1
                                             : 0);
  if (!pattern.Match(path, 0, path.size(), re2::RE2::ANCHOR_BOTH, found.data(),
                     static_cast<int>(found.size())))
    return false;
  if (groups) {
    for (std::size_t i = 1; i < found.size(); ++i) groups->emplace_back(found[i].data(), found[i].size());
  }
  return true;
}

HttpRequest convert(const httplib::Request& in, std::string body) {
  HttpRequest out;
  out.method = in.method;
  out.path = in.path;
  out.target = in.target;
  for (const auto& [name, value] : in.headers) out.headers.emplace(core::to_lower(name), value);
  for (const auto& [name, value] : in.params) out.query.emplace(name, value);
  out.body = std::move(body);
  out.remote_addr = in.remote_addr;
  return out;
}

// Bodies go out as they are (identity): httplib would compress a text body by a substring match on
// Accept-Encoding ("br;q=0" included), under the same ETag and without Vary, which misleads caches.
// A body with a known length is one it never compresses.
void set_identity_body(httplib::Response& out, std::string body, const std::string& content_type) {
  if (body.empty()) return out.set_content("", content_type);
  auto shared = std::make_shared<const std::string>(std::move(body));
  out.set_content_provider(shared->size(), content_type,
                           [shared](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                             return sink.write(shared->data() + offset, length);
                           });
}

void plain(httplib::Response& out, int status, const std::string& text) {
  out.status = status;
  set_identity_body(out, text + "\n", "text/plain; charset=utf-8");
}

std::string response_header(const HttpResponse& response, const std::string& name) {
  for (const auto& [key, value] : response.headers) {
    if (core::to_lower(key) == core::to_lower(name)) return value;
  }
  return {};
}

// Streams the open file (or the slice a single Range asks for) from the file itself, so serving a
// multi-gigabyte wheel needs constant memory; the size is the one fstat saw when it was opened.
void set_file_body(const httplib::Request& in, const HttpResponse& response, httplib::Response& out) {
  std::shared_ptr<const OpenEntry> file = response.open_file;
  if (!file) {
    auto opened = open_file(*response.file);
    if (!opened) {
      return plain(
          out, opened.error().category() == ErrorCategory::not_found ? 404 : 500,
          opened.error().category() == ErrorCategory::not_found ? "not found" : "cannot open the file");
    }
    file = std::make_shared<const OpenEntry>(std::move(*opened));
  }
  const std::uint64_t size = file->size();
  out.set_header("Accept-Ranges", "bytes");
  RangeAnswer range;
  const std::string range_header = in.get_header_value("Range");
  if (!range_header.empty()) {
    // If-Range: the range only applies to the representation the client already holds.
    const std::string if_range = in.get_header_value("If-Range");
    const std::string etag = response_header(response, "ETag");
    if (if_range.empty() || (!etag.empty() && if_range == etag && !etag.starts_with("W/")))
      range = evaluate_range(range_header, size);
  }
  if (range.outcome == RangeOutcome::unsatisfiable) {
    out.set_header("Content-Range", "bytes */" + std::to_string(size));
    return plain(out, 416, "range not satisfiable: the file has " + std::to_string(size) + " bytes");
  }
  std::uint64_t first = 0;
  std::uint64_t length = size;
  if (range.outcome == RangeOutcome::partial) {
    first = range.first;
    length = range.last - range.first + 1;
    out.status = 206;
    out.set_header("Content-Range", "bytes " + std::to_string(range.first) + "-" +
                                        std::to_string(range.last) + "/" + std::to_string(size));
  }
  if (length == 0) return out.set_content("", response.content_type);
  // httplib writes the head (with our Content-Length and no body of its own); the connection then
  // sends the body from the file, and leaves a slow reader's rest to the gate, not to a thread.
  out.set_header("Content-Type", response.content_type);
  out.set_header("Content-Length", std::to_string(length));
  if (in.method != "HEAD") detail::send_file_after_head(std::move(file), first, length);
}

class Server : public httplib::Server {
public:
  // httplib closes its listening socket only from its own accept loop, which we do not run.
  void close_listening_socket() {
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
  int listening_socket() const { return svr_sock_.load(); }
  bool process(httplib::Stream& stream, bool close_connection, bool& connection_closed,
               const std::function<void(httplib::Request&)>& setup) {
    return process_request(stream, close_connection, connection_closed, setup);
  }
};

// Every waiting connection holds its socket, and one taking a file body holds the file too: the
// usual soft limit of 1024 descriptors would refuse connections well below max_connections.
void make_room_for_descriptors(const HttpLimits& limits) {
  const rlim_t wanted = static_cast<rlim_t>(limits.max_connections) * 2 + 256;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= wanted) return;
  limit.rlim_cur = std::min(wanted, limit.rlim_max);
  ::setrlimit(RLIMIT_NOFILE, &limit);
}

bool takes_body(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

}  // namespace

struct HttpServer::Impl {
  Server server;
  std::vector<Route> routes;
  std::size_t max_body = std::numeric_limits<std::size_t>::max();
  std::size_t threads = 8;
  HttpLimits limits;
  int wake[2] = {-1, -1};
  bool bound = false;

  // The methods routed for `path`, HEAD wherever GET is, in registration order.
  std::vector<std::string> methods_for(const std::string& path) const {
    std::vector<std::string> methods;
    const auto add = [&methods](const std::string& m) {
      if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
    };
    for (const auto& route : routes) {
      if (!full_match(*route.pattern, path, nullptr)) continue;
      add(route.method);
      if (route.method == "GET") add("HEAD");
    }
    return methods;
  }

  detail::Precheck precheck(const RequestHead& head) const {
    detail::Precheck check;
    const bool has_body = head.chunked || head.content_length.value_or(0) > 0;
    check.close_after = has_body;
    // Not a proxy: absolute-form, authority-form and "*" name nothing we serve.
    if (!head.target.starts_with("/")) {
      check.status = 400;
      check.message = "the request target must be a path starting with '/'";
      return check;
    }
    const std::string raw_path = head.target.substr(0, head.target.find('?'));
    if (raw_path.size() > limits.max_path_bytes) {
      check.status = 414;
      check.message = "request path longer than " + std::to_string(limits.max_path_bytes) + " bytes";
      check.close_after = true;
      return check;
    }
    const std::string path = httplib::detail::decode_url(raw_path, false);
    // A decoded CR, LF or other control byte is in no route (and RE2's '.' would not match a
    // newline anyway): the path is bad, and it is never echoed back.
    if (std::any_of(path.begin(), path.end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) == 0x7f;
        })) {
      check.status = 400;
      check.message = "bad path: a control byte (encoded or not) in the request path";
      return check;
    }
    const auto methods = methods_for(path);
    if (std::find(methods.begin(), methods.end(), head.method) == methods.end()) {
      if (methods.empty()) {
        check.status = 404;
        check.message = "not found";
      } else {
        check.status = 405;
        check.message = "method " + head.method + " not allowed here";
        for (const auto& m : methods) check.allow += (check.allow.empty() ? "" : ", ") + m;
      }
      return check;
    }
    if (!takes_body(head.method)) return check;  // GET with a body: not read; answered, then closed
    check.close_after = false;
    check.read_body = has_body;
    if (head.content_length && *head.content_length > max_body) {
      check.status = 413;
      check.message = "request body too large: the limit is " + std::to_string(max_body) + " bytes";
      check.close_after = true;
      check.read_body = false;
    } else if (has_body &&
               core::to_lower(head.field("content-type").value_or("")).starts_with("multipart/")) {
      check.status = 415;
      check.message = "multipart bodies are not accepted";
      check.close_after = true;
      check.read_body = false;
    }
    return check;
  }

  void dispatch(const httplib::Request& in, httplib::Response& out, std::string body) {
    const std::string method = in.method == "HEAD" ? "GET" : in.method;
    std::vector<std::string> allowed;
    for (const auto& route : routes) {
      if (route.method != method) continue;
      std::vector<std::string> groups;
      if (!full_match(*route.pattern, in.path, &groups)) continue;
      HttpRequest request = convert(in, std::move(body));
      request.matches = std::move(groups);
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
      if ((response.open_file || response.file) && response.status == 200) {
        set_file_body(in, response, out);
      } else {
        // Only files take ranges; saying so keeps HEAD's fields those of GET (httplib adds
        // "Accept-Ranges: bytes" to a HEAD answer that names none).
        if (!out.has_header("Accept-Ranges")) out.set_header("Accept-Ranges", "none");
        set_identity_body(out, std::move(response.body), response.content_type);
      }
      return;
    }
    // The precheck already answered 404/405 for paths and methods without a route.
    plain(out, 404, "not found");
  }

  // Counts the body while it arrives and stops at the limit, chunked or not.
  void read_and_dispatch(const httplib::Request& in, httplib::Response& out,
                         const httplib::ContentReader& reader) {
    std::string body;
    bool too_large = false;
    const bool read = reader([&](const char* data, std::size_t length) {
      if (length > max_body - body.size()) {
        too_large = true;
        return false;
      }
      body.append(data, length);
      return true;
    });
    if (too_large || !read) {
      detail::close_connection_after_response();
      out.set_header("Connection", "close");
      if (too_large)
        return plain(out, 413, "request body too large: the limit is " + std::to_string(max_body) + " bytes");
      return plain(out, 400, "the request body could not be read (bad chunked framing, or too slow)");
    }
    dispatch(in, out, std::move(body));
  }

  detail::ConnectionHooks hooks() {
    detail::ConnectionHooks hooks;
    hooks.precheck = [this](const RequestHead& head) { return precheck(head); };
    hooks.process = [this](httplib::Stream& stream, bool close, bool& closed,
                           const std::function<void(httplib::Request&)>& setup) {
      return server.process(stream, close, closed, setup);
    };
    return hooks;
  }
};

HttpServer::HttpServer() : m_impl(std::make_unique<Impl>()) {
  auto* impl = m_impl.get();
  if (::pipe2(impl->wake, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe2 failed");
  const auto handler = [impl](const httplib::Request& in, httplib::Response& out) {
    impl->dispatch(in, out, in.body);
  };
  const auto reading = [impl](const httplib::Request& in, httplib::Response& out,
                              const httplib::ContentReader& reader) {
    impl->read_and_dispatch(in, out, reader);
  };
  impl->server.Get(".*", handler);
  impl->server.Options(".*", handler);
  impl->server.Post(".*", reading);
  impl->server.Put(".*", reading);
  impl->server.Patch(".*", reading);
  impl->server.Delete(".*", reading);
  // httplib's default also sets SO_REUSEPORT, which would let a second server silently share a
  // port that is in use; keep only SO_REUSEADDR (rebinding right after a restart).
  impl->server.set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  impl->server.set_exception_handler([](const httplib::Request&, httplib::Response& out, std::exception_ptr) {
    plain(out, 500, "internal server error");
  });
  // Error statuses produced by httplib itself get a readable body.
  impl->server.set_error_handler([](const httplib::Request&, httplib::Response& out) {
    if (out.body.empty() && !out.content_provider_) {
      set_identity_body(out, std::to_string(out.status) + " " + detail::status_text(out.status) + "\n",
                        "text/plain; charset=utf-8");
    }
  });
}

HttpServer::~HttpServer() {
  stop();
  m_impl->server.close_listening_socket();
  ::close(m_impl->wake[0]);
  ::close(m_impl->wake[1]);
}

void HttpServer::route(const std::string& method, const std::string& path_regex, HttpHandler handler) {
  // Latin-1: a decoded path is bytes, not necessarily UTF-8, and `.` must match any of them.
  re2::RE2::Options options;
  options.set_encoding(re2::RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  auto pattern = std::make_unique<const re2::RE2>(path_regex, options);
  if (!pattern->ok())
    throw std::invalid_argument("bad route pattern '" + path_regex + "': " + pattern->error());
  m_impl->routes.push_back({method, std::move(pattern), std::move(handler)});
}

void HttpServer::set_threads(std::size_t count) {
  m_impl->threads = std::max<std::size_t>(1, count);
}

void HttpServer::set_max_body_bytes(std::size_t limit) {
  m_impl->max_body = limit;
  m_impl->server.set_payload_max_length(limit);
}

void HttpServer::set_limits(const HttpLimits& limits) {
  m_impl->limits = limits;
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
  make_room_for_descriptors(m_impl->limits);
  const int listener = m_impl->server.listening_socket();
  // Only for the Keep-Alive field httplib writes into responses; the loop enforces them.
  m_impl->server.set_keep_alive_max_count(m_impl->limits.max_requests_per_connection);
  m_impl->server.set_keep_alive_timeout(std::max<time_t>(
      1, std::chrono::duration_cast<std::chrono::seconds>(m_impl->limits.idle_timeout).count()));
  auto* impl = m_impl.get();
  detail::ConnectionHooks hooks = impl->hooks();
  detail::ByteBudget unsent_budget(impl->limits.max_unsent_bytes);  // outlives every connection
  hooks.unsent_budget = &unsent_budget;
  httplib::ThreadPool pool(impl->threads);
  std::atomic<std::size_t> queued{0};  // whole requests handed on that no thread has taken yet
  hooks.others_waiting = [&queued] { return queued.load(std::memory_order_relaxed) > 0; };
  // Connections wait for their requests in the gate; a request thread is taken only to answer.
  detail::Gate gate(listener, impl->wake[0], impl->limits, impl->max_body, hooks.precheck,
                    [impl, &hooks, &pool, &queued](detail::ConnectionPtr connection, detail::Gate& from) {
                      queued.fetch_add(1, std::memory_order_relaxed);
                      pool.enqueue([impl, &hooks, &from, &queued, connection] {
                        queued.fetch_sub(1, std::memory_order_relaxed);
                        const auto after =
                            detail::serve_requests(*connection, impl->wake[0], impl->limits, hooks);
                        if (after != detail::AfterAnswers::close) from.give_back(connection, after);
                      });
                    });
  const Status result = gate.run();
  // In-flight responses see the listener gone and stop streaming; their connections are closed
  // when given back. Then every request thread is joined.
  impl->server.close_listening_socket();
  pool.shutdown();
  return result;
}

void HttpServer::stop() {
  const char byte = 1;
  [[maybe_unused]] const auto written = ::write(m_impl->wake[1], &byte, 1);
}

}  // namespace relforge::platform
