#include "platform/http_connection.hpp"

#include "platform/http_chunked.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <utility>

namespace relforge::platform::detail {
namespace {

using Clock = std::chrono::steady_clock;

struct ConnectionState {
  bool must_close = false;
  std::optional<std::string> range{};
};

thread_local ConnectionState* t_state = nullptr;

int millis_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

enum class Wait { ready, timeout, stop };

// Waits for `events` on `fd` until `deadline`; the wake pipe (server stopping) wins.
Wait wait_for(int fd, short events, int wake_fd, Clock::time_point deadline) {
  for (;;) {
    pollfd fds[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
    const int n = ::poll(fds, 2, millis_until(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Wait::stop;
    if (fds[1].revents != 0) return Wait::stop;
    if (n == 0) return Wait::timeout;
    return Wait::ready;
  }
}

void describe_address(const sockaddr_storage& address, socklen_t length, std::string& ip, int& port) {
  char host[NI_MAXHOST] = {};
  char service[NI_MAXSERV] = {};
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, host, sizeof host, service,
                    sizeof service, NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    ip = host;
    port = std::atoi(service);
  }
}

// The socket as httplib's Stream: bytes already received (the head we scanned) are served first;
// every read waits at most until the current deadline, every write at most write_timeout without
// progress (SO_SNDTIMEO), so no client holds the thread longer than the limits say.
class ConnectionStream final : public httplib::Stream {
public:
  ConnectionStream(int fd, int wake_fd, const HttpLimits& limits)
      : m_fd(fd), m_wake(wake_fd), m_limits(limits) {}

  bool is_readable() const override {
    return m_offset < m_buffer.size() || wait_for(m_fd, POLLIN, m_wake, Clock::now()) == Wait::ready;
  }
  bool is_writable() const override {
    return wait_for(m_fd, POLLOUT, m_wake, Clock::now() + m_limits.write_timeout) == Wait::ready;
  }

  ssize_t read(char* ptr, std::size_t size) override {
    if (size == 0) return 0;
    // httplib reads lines (chunk sizes, trailers) one byte at a time into a buffer that grows
    // without bound: cap the length of any line read that way.
    if (size == 1) {
      if (++m_line_run > m_limits.max_request_line) return -1;
    } else {
      m_line_run = 0;
    }
    ssize_t n = 0;
    if (m_offset < m_buffer.size()) {
      n = static_cast<ssize_t>(std::min(size, m_buffer.size() - m_offset));
      std::memcpy(ptr, m_buffer.data() + m_offset, static_cast<std::size_t>(n));
      m_offset += static_cast<std::size_t>(n);
      if (m_offset == m_buffer.size()) {
        m_buffer.clear();
        m_offset = 0;
      }
    } else {
      if (!flush() || wait_for(m_fd, POLLIN, m_wake, m_deadline) != Wait::ready) return -1;
      do {
        n = ::recv(m_fd, ptr, size, 0);
      } while (n < 0 && errno == EINTR);
    }
    if (size == 1 && n == 1 && *ptr == '\n') m_line_run = 0;
    return n;
  }

  // httplib writes a response's head and its body in separate calls: sent as they come, each small
  // answer would take two segments and two trips through the client's TCP stack. Small writes are
  // gathered and sent when the response is done (flush), before the next read, or when full.
  ssize_t write(const char* ptr, std::size_t size) override {
    if (m_out.size() + size <= k_gather_bytes) {
      m_out.append(ptr, size);
      return static_cast<ssize_t>(size);
    }
    if (!flush() || !send_all(ptr, size)) return -1;
    return static_cast<ssize_t>(size);
  }
  // Sends what write() gathered; false when the client stopped reading (SO_SNDTIMEO) or is gone.
  bool flush() {
    const bool sent = m_out.empty() || send_all(m_out.data(), m_out.size());
    m_out.clear();
    return sent;
  }

  // A connection's two ends do not change: asked once, not once per request.
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(::getpeername, m_remote, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(::getsockname, m_local, ip, port);
  }
  socket_t socket() const override { return m_fd; }

  std::string_view buffered() const { return std::string_view(m_buffer).substr(m_offset); }
  // Receives more bytes into the buffer; false on end of stream, deadline or stop.
  bool fill(Clock::time_point deadline, Wait* why = nullptr) {
    const Wait waited = flush() ? wait_for(m_fd, POLLIN, m_wake, deadline) : Wait::stop;
    if (why != nullptr) *why = waited;
    if (waited != Wait::ready) return false;
    char chunk[16384];
    ssize_t n = 0;
    do {
      n = ::recv(m_fd, chunk, sizeof chunk, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    if (m_offset > 0 && m_offset == m_buffer.size()) {
      m_buffer.clear();
      m_offset = 0;
    }
    m_buffer.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
  void consume(std::size_t count) { m_offset += count; }
  // Replaces the first `count` buffered bytes (the head as received) with `text`.
  void replace_front(std::size_t count, const std::string& text) {
    m_buffer = text + std::string(buffered().substr(count));
    m_offset = 0;
  }
  void set_deadline(Clock::time_point deadline) {
    m_deadline = deadline;
    m_line_run = 0;
  }

private:
  static constexpr std::size_t k_gather_bytes = 64 * 1024;

  bool send_all(const char* ptr, std::size_t size) {
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::send(m_fd, ptr + done, size - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // EAGAIN after SO_SNDTIMEO: the client stopped reading
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  using Address = std::optional<std::pair<std::string, int>>;
  void address_of(int (*query)(int, sockaddr*, socklen_t*), Address& cache, std::string& ip,
                  int& port) const {
    if (!cache) {
      cache.emplace();
      sockaddr_storage address{};
      socklen_t length = sizeof address;
      if (query(m_fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        describe_address(address, length, cache->first, cache->second);
    }
    ip = cache->first;
    port = cache->second;
  }

  int m_fd;
  int m_wake;
  const HttpLimits& m_limits;
  std::string m_out;  // written, not yet sent
  mutable Address m_remote, m_local;
  std::string m_buffer;
  std::size_t m_offset = 0;
  Clock::time_point m_deadline = Clock::now();
  std::size_t m_line_run = 0;
};

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void answer(int fd, const std::string& method, int status, const std::string& message,
            const std::string& allow, bool close) {
  const std::string body = message + "\n";
  std::string text = "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) + "\r\n";
  text += "Content-Type: text/plain; charset=utf-8\r\n";
  text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  if (!allow.empty()) text += "Allow: " + allow + "\r\n";
  if (close) text += "Connection: close\r\n";
  text += "\r\n";
  if (method != "HEAD") text += body;
  write_all(fd, text);
}

// Closing a socket with unread input makes the kernel send RST, and the client may lose the
// answer we just wrote; so stop writing, then read and drop what is in flight for a moment.
void close_lingering(int fd, int wake_fd) {
  ::shutdown(fd, SHUT_WR);
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  std::size_t drained = 0;
  char chunk[16384];
  // Until the client goes quiet for a moment (then nothing unread is left to cause a reset), at
  // most 2 s and 64 MiB.
  const auto quiet = [&deadline] {
    return std::min(deadline, Clock::now() + std::chrono::milliseconds(250));
  };
  while (drained < (std::size_t{64} << 20) && wait_for(fd, POLLIN, wake_fd, quiet()) == Wait::ready) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    drained += static_cast<std::size_t>(n);
  }
}

// RFC 9112 §9.3: HTTP/1.1 stays open unless "close"; HTTP/1.0 closes unless "keep-alive".
bool client_closes(const RequestHead& head) {
  std::string connection = head.field("connection").value_or("");
  for (auto& c : connection) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (connection.find("close") != std::string::npos) return true;
  return head.version == "HTTP/1.0" && connection.find("keep-alive") == std::string::npos;
}

// The head httplib parses: without Range, and a chunked body (decoded here) framed by its length.
std::string rebuild_head(const RequestHead& head, std::optional<std::size_t> decoded_length) {
  std::string text = head.method + " " + head.target + " " + head.version + "\r\n";
  for (const auto& [name, value] : head.fields) {
    if (name == "range" || (decoded_length && name == "transfer-encoding")) continue;
    text += name + ": " + value + "\r\n";
  }
  if (decoded_length) {
    text += "content-length: " + std::to_string(*decoded_length) + "\r\n";
  } else if (!head.content_length && !head.chunked) {
    // Without framing a request has no body (RFC 9112 §6.3); httplib would read until the client
    // closes instead.
    text += "content-length: 0\r\n";
  }
  return text + "\r\n";
}

enum class BodyRead { done, answered };

// Reads a chunked body through ChunkedDecoder and puts it back in front of the stream, after a head
// that frames it by length; a body that is malformed, too large or too slow is answered and the
// connection must close.
BodyRead dechunk(ConnectionStream& stream, int fd, const RequestHead& head, const HttpLimits& limits,
                 std::size_t max_body) {
  ChunkedDecoder decoder(max_body, limits.max_request_line);
  stream.consume(head.size);
  const auto deadline = Clock::now() + limits.body_timeout;
  for (;;) {
    stream.consume(decoder.feed(stream.buffered()));
    if (decoder.scan() == ChunkedScan::complete) break;
    if (decoder.scan() == ChunkedScan::rejected) {
      answer(fd, head.method, decoder.status(), decoder.message(), "", true);
      return BodyRead::answered;
    }
    Wait why = Wait::ready;
    if (!stream.fill(deadline, &why)) {
      if (why == Wait::timeout) answer(fd, head.method, 408, "request body not received in time", "", true);
      return BodyRead::answered;
    }
  }
  stream.replace_front(0, rebuild_head(head, decoder.body().size()) + decoder.body());
  return BodyRead::done;
}

}  // namespace

void close_connection_after_response() {
  if (t_state != nullptr) t_state->must_close = true;
}

const char* status_text(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 431:
      return "Request Header Fields Too Large";
    case 501:
      return "Not Implemented";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

void serve_connection(int fd, int wake_fd, const HttpLimits& limits, const ConnectionHooks& hooks) {
  const int yes = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  const auto write_seconds = std::chrono::duration_cast<std::chrono::microseconds>(limits.write_timeout);
  timeval send_timeout{static_cast<time_t>(write_seconds.count() / 1'000'000),
                       static_cast<suseconds_t>(write_seconds.count() % 1'000'000)};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);

  ConnectionStream stream(fd, wake_fd, limits);
  ConnectionState state;
  t_state = &state;
  const HeadLimits head_limits{limits.max_request_line, limits.max_head_bytes};
  bool linger = false;
  for (std::size_t count = 0; count < limits.max_requests_per_connection; ++count) {
    state = {};
    // A new connection has header_timeout for its whole head; a kept-alive one idle_timeout to
    // start the next request and then header_timeout for its head.
    const auto waiting_since = Clock::now();
    const auto first_wait = count == 0 ? limits.header_timeout : limits.idle_timeout;
    if (stream.buffered().empty() && !stream.fill(waiting_since + first_wait)) break;
    const auto head_deadline = (count == 0 ? waiting_since : Clock::now()) + limits.header_timeout;
    HeadResult scanned;
    bool timed_out = false;
    for (;;) {
      scanned = scan_request_head(stream.buffered(), head_limits);
      if (scanned.scan != HeadScan::incomplete) break;
      Wait why = Wait::ready;
      if (!stream.fill(head_deadline, &why)) {
        timed_out = why == Wait::timeout;
        break;
      }
    }
    if (scanned.scan == HeadScan::incomplete) {
      if (timed_out) {
        answer(fd, "", 408, "request head not received in time", "", true);
        linger = true;
      }
      break;
    }
    if (scanned.scan == HeadScan::rejected) {
      answer(fd, "", scanned.status, scanned.message, "", true);
      linger = true;
      break;
    }
    const RequestHead& head = scanned.head;
    const Precheck check = hooks.precheck(head);
    if (check.status != 0) {
      const bool close = check.close_after || client_closes(head);
      answer(fd, head.method, check.status, check.message, check.allow, close);
      if (close) {
        linger = check.close_after;
        break;
      }
      stream.consume(head.size);
      continue;
    }
    // httplib answers a malformed Range with 416 and mishandles ranges past the end: take Range
    // away from it and hand it to our handlers through `setup` instead.
    state.range = head.field("range");
    if (head.chunked) {
      if (dechunk(stream, fd, head, limits, hooks.max_body) == BodyRead::answered) {
        linger = true;
        break;
      }
    } else {
      stream.replace_front(head.size, rebuild_head(head, std::nullopt));
    }
    stream.set_deadline(Clock::now() + limits.body_timeout);
    const bool close = check.close_after || count + 1 == limits.max_requests_per_connection;
    bool closed = false;
    const bool processed = hooks.process(stream, close, closed, [&state](httplib::Request& request) {
      if (state.range) request.set_header("Range", *state.range);
    });
    const bool ok = stream.flush() && processed;
    if (state.must_close) linger = true;
    if (!ok || closed || close || state.must_close) break;
  }
  t_state = nullptr;
  if (linger) close_lingering(fd, wake_fd);
  ::close(fd);
}

}  // namespace relforge::platform::detail
