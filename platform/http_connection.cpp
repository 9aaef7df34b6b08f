#include "platform/http_connection.hpp"

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
#include <limits>
#include <optional>
#include <utility>

namespace relforge::platform::detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto k_next_request_moment = std::chrono::milliseconds(2);

// How long a request thread waits for a full socket to take more of a file body before it
// leaves the rest to the gate: a client reading at full speed keeps its thread, a slow one does not.
constexpr auto k_send_moment = std::chrono::milliseconds(10);

struct ConnectionState {
  bool must_close = false;
  std::optional<std::string> range{};
  std::optional<UnsentBody> body{};
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
// progress, so no client holds the thread longer than the limits say.
class ConnectionStream final : public httplib::Stream {
public:
  // `received`: bytes the gate already read, served before the socket's.
  ConnectionStream(int fd, int wake_fd, const HttpLimits& limits, std::string received,
                   const ConnectionHooks& hooks)
      : m_fd(fd),
        m_wake(wake_fd),
        m_limits(limits),
        m_hooks(hooks),
        m_deferred_lease(hooks.unsent_budget),
        m_buffer(std::move(received)) {}

  bool is_readable() const override {
    return m_offset < m_buffer.size() || wait_for(m_fd, POLLIN, m_wake, Clock::now()) == Wait::ready;
  }
  bool is_writable() const override {
    // Once part of an answer is deferred, the rest is too: a write never waits then.
    if (!m_deferred.empty()) return true;
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
      if (!settle()) return -1;
      do {
        if (wait_for(m_fd, POLLIN, m_wake, m_deadline) != Wait::ready) return -1;
        n = ::recv(m_fd, ptr, size, 0);
      } while (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK));
    }
    if (size == 1 && n == 1 && *ptr == '\n') m_line_run = 0;
    return n;
  }

  // httplib writes a response's head and its body in separate calls: sent as they come, each small
  // answer would take two segments and two trips through the client's TCP stack. Small writes are
  // gathered and sent when the response is done (flush), before the next read, or when full.
  // What a slow reader does not take within a moment is deferred: kept (under the unsent budget)
  // for the gate to send, and what the answer writes after it joins it.
  ssize_t write(const char* ptr, std::size_t size) override {
    if (!m_deferred.empty()) return add_deferred(ptr, size) ? static_cast<ssize_t>(size) : -1;
    if (m_out.size() + size <= k_gather_bytes) {
      m_out.append(ptr, size);
      return static_cast<ssize_t>(size);
    }
    if (!flush() || !add_deferred(ptr, size)) return -1;
    return static_cast<ssize_t>(size);
  }
  // Sends (or defers) what write() gathered; false when the client stopped reading or is gone.
  bool flush() {
    if (m_out.empty()) return true;
    const std::string out = std::exchange(m_out, std::string());
    return add_deferred(out.data(), out.size());
  }
  // Whether part of the answer waits to be sent by the gate; hand_deferred_to gives it to `body`
  // with its lease on the unsent budget.
  bool has_deferred() const { return !m_deferred.empty(); }
  void hand_deferred_to(UnsentBody& body) {
    body.bytes = std::exchange(m_deferred, std::string());
    body.lease = std::exchange(m_deferred_lease, BudgetLease(m_hooks.unsent_budget));
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
  void consume(std::size_t count) { m_offset += count; }
  // Receives what arrives by `deadline` into the buffer; false when nothing did (or the client left).
  bool receive_until(Clock::time_point deadline) {
    if (!settle() || wait_for(m_fd, POLLIN, m_wake, deadline) != Wait::ready) return false;
    char chunk[16384];
    ssize_t n = 0;
    do {
      n = ::recv(m_fd, chunk, sizeof chunk, MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    m_buffer.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
  // What was received and not consumed, for the gate to keep.
  std::string take_buffer() {
    m_buffer.erase(0, m_offset);
    m_offset = 0;
    return std::move(m_buffer);
  }
  // An answer written whole, now; false when the client is gone or stopped reading.
  bool send_now(const std::string& text) { return settle() && send_all(text.data(), text.size()); }
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

  // Everything written is sent, in order, before anything is read or sent another way.
  bool settle() {
    if (!flush()) return false;
    if (m_deferred.empty()) return true;
    const bool sent = send_all(m_deferred.data(), m_deferred.size());
    m_deferred.clear();
    m_deferred_lease.release();
    return sent;
  }

  // Sends `size` bytes, or defers what the reader does not take within a moment (at once while
  // other requests wait for a thread). Without room in the budget the connection is dropped: a
  // thread that waited for such a reader could be held for as long as it kept taking a byte now
  // and then, and the budget is only full when hundreds of readers have stalled.
  bool add_deferred(const char* ptr, std::size_t size) {
    if (!m_deferred.empty()) {
      if (!m_deferred_lease.grow(size)) return false;
      m_deferred.append(ptr, size);
      return true;
    }
    for (std::size_t done = 0;;) {
      if (!send_some(ptr, size, done)) return false;
      if (done == size) return true;
      const bool others = m_hooks.others_waiting && m_hooks.others_waiting();
      const Wait moment =
          others ? Wait::timeout : wait_for(m_fd, POLLOUT, m_wake, Clock::now() + k_send_moment);
      if (moment == Wait::ready) continue;
      if (moment == Wait::stop) return false;
      if (!m_deferred_lease.grow(size - done)) return false;
      m_deferred.assign(ptr + done, size - done);
      return true;
    }
  }

  // The socket does not block: a full one is waited on, write_timeout at most without progress.
  bool send_all(const char* ptr, std::size_t size) {
    for (std::size_t done = 0;;) {
      if (!send_some(ptr, size, done)) return false;
      if (done == size) return true;
      if (!is_writable()) return false;  // the client stopped reading, or the server stops
    }
  }

  // Sends from `done` on what the socket takes now; false when the client is gone.
  bool send_some(const char* ptr, std::size_t size, std::size_t& done) {
    while (done < size) {
      const ssize_t n = ::send(m_fd, ptr + done, size - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      if (n <= 0) return false;
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
  const ConnectionHooks& m_hooks;
  std::string m_out;       // written, not yet sent
  std::string m_deferred;  // written, not taken by a slow reader: the gate's to send
  BudgetLease m_deferred_lease;
  mutable Address m_remote, m_local;
  std::string m_buffer;
  std::size_t m_offset = 0;
  Clock::time_point m_deadline = Clock::now();
  std::size_t m_line_run = 0;
};

// Sends a file body while the client takes it at full speed; `blocked` leaves the rest to the
// gate (the client is slow, or other requests wait for a thread).
SendStep send_body(int fd, int wake_fd, UnsentBody& body, const ConnectionHooks& hooks) {
  for (;;) {
    std::size_t sent = 0;
    const SendStep step = send_unsent_part(fd, body, std::numeric_limits<std::size_t>::max(), sent);
    if (step != SendStep::blocked) return step;
    if (hooks.others_waiting && hooks.others_waiting()) return step;
    switch (wait_for(fd, POLLOUT, wake_fd, Clock::now() + k_send_moment)) {
      case Wait::ready:
        break;
      case Wait::timeout:
        return SendStep::blocked;
      case Wait::stop:
        return SendStep::failed;
    }
  }
}

// RFC 9112 §9.3: HTTP/1.1 stays open unless "close"; HTTP/1.0 closes unless "keep-alive".
bool client_closes(const RequestHead& head) {
  std::string connection = head.field("connection").value_or("");
  for (auto& c : connection) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (connection.find("close") != std::string::npos) return true;
  return head.version == "HTTP/1.0" && connection.find("keep-alive") == std::string::npos;
}

// The head httplib parses: without Range (ours to judge) and Expect (the gate answered it), its
// body framed by length: a chunked one arrives decoded, and one the precheck left unread is none.
std::string rebuild_head(const RequestHead& head, std::size_t body_length) {
  std::string text = head.method + " " + head.target + " " + head.version + "\r\n";
  for (const auto& [name, value] : head.fields) {
    if (name == "range" || name == "expect" || name == "transfer-encoding" || name == "content-length")
      continue;
    text += name + ": " + value + "\r\n";
  }
  return text + "content-length: " + std::to_string(body_length) + "\r\n\r\n";
}

}  // namespace

void close_connection_after_response() {
  if (t_state != nullptr) t_state->must_close = true;
}

void send_file_after_head(std::shared_ptr<const OpenEntry> file, std::uint64_t offset, std::uint64_t length) {
  if (t_state == nullptr) return;
  t_state->body.emplace();
  t_state->body->file = std::move(file);
  t_state->body->offset = offset;
  t_state->body->left = length;
}

AfterAnswers serve_requests(Connection& connection, int wake_fd, const HttpLimits& limits,
                            const ConnectionHooks& hooks) {
  ConnectionStream stream(connection.fd, wake_fd, limits, std::move(connection.received), hooks);
  ConnectionState state;
  t_state = &state;
  RequestGatherer& gather = connection.gather;
  AfterAnswers after = AfterAnswers::wait;
  for (;;) {
    state = {};
    ++connection.answered;
    const RequestHead& head = gather.head();
    const Precheck& check = gather.check();
    if (check.status != 0) {
      const bool close = check.close_after || client_closes(head);
      if (!stream.send_now(plain_answer(head.method, check.status, check.message, check.allow, close))) {
        after = AfterAnswers::close;
        break;
      }
      if (close) {
        after = check.close_after ? AfterAnswers::drain : AfterAnswers::close;
        break;
      }
      stream.consume(gather.size());
    } else {
      // httplib answers a malformed Range with 416 and mishandles ranges past the end: take Range
      // away from it and hand it to our handlers through `setup` instead.
      state.range = head.field("range");
      std::string body;
      if (check.read_body) {
        body = head.chunked ? std::move(gather.decoded_body())
                            : std::string(stream.buffered().substr(head.size, gather.size() - head.size));
      }
      stream.replace_front(gather.size(), rebuild_head(head, body.size()) + body);
      stream.set_deadline(std::chrono::steady_clock::now() + limits.body_timeout);
      const bool close = check.close_after || connection.answered >= limits.max_requests_per_connection;
      bool closed = false;
      const bool processed = hooks.process(stream, close, closed, [&state](httplib::Request& request) {
        if (state.range) request.set_header("Range", *state.range);
      });
      const bool ok = stream.flush() && processed;
      AfterAnswers then = AfterAnswers::wait;
      if (!ok) {
        then = AfterAnswers::close;
      } else if (state.must_close || check.close_after) {
        then = AfterAnswers::drain;
      } else if (closed || close) {
        then = AfterAnswers::close;
      }
      if (ok && stream.has_deferred()) {  // the answer's rest goes before any file body
        if (!state.body) state.body.emplace();
        stream.hand_deferred_to(*state.body);
      }
      if (ok && state.body) {
        state.body->then = then;
        const SendStep sent = send_body(connection.fd, wake_fd, *state.body, hooks);
        if (sent == SendStep::failed) {
          after = AfterAnswers::close;
          break;
        }
        if (sent == SendStep::blocked) {
          // Requests pipelined behind this one stay received, for after the body.
          connection.body = std::move(state.body);
          after = AfterAnswers::send;
          break;
        }
      }
      if (then != AfterAnswers::wait) {
        after = then;
        break;
      }
    }
    // A request already received, or arriving within a moment while no other connection's request
    // waits for a thread, is answered here; anything less waits in the gate. The moment spares
    // a busy keep-alive client two trips through the gate per request.
    gather.reset();
    GatherStep next = gather.advance(stream.buffered(), hooks.precheck);
    const auto moment = std::chrono::steady_clock::now() + k_next_request_moment;
    while (next == GatherStep::incomplete && !(hooks.others_waiting && hooks.others_waiting()) &&
           stream.receive_until(moment))
      next = gather.advance(stream.buffered(), hooks.precheck);
    if (next == GatherStep::incomplete) break;
    if (next == GatherStep::refused) {
      stream.send_now(plain_answer(gather.head().method, gather.status(), gather.message(), "", true));
      after = AfterAnswers::drain;
      break;
    }
  }
  connection.received = stream.take_buffer();
  t_state = nullptr;
  return after;
}

}  // namespace relforge::platform::detail
