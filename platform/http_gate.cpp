#include "platform/http_gate.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "platform/sync.hpp"
#include "platform/unique_fd.hpp"

namespace relforge::platform::detail {
namespace {

using Clock = std::chrono::steady_clock;

// Lingering after an answer the body of which was not read: until the client is quiet this long,
// at most k_drain_time and k_drain_bytes.
constexpr auto k_drain_quiet = std::chrono::milliseconds(250);
constexpr auto k_drain_time = std::chrono::seconds(2);
constexpr std::size_t k_drain_bytes = std::size_t{64} << 20;
// Bytes taken from (or sent to) one connection per wake-up, so one fast client cannot hold the loop.
constexpr std::size_t k_read_per_wake = 256 * 1024;
constexpr std::size_t k_send_per_wake = std::size_t{1} << 20;

enum class Phase { idle, head, body, drain, send };

struct Waiting {
  ConnectionPtr connection;
  Phase phase = Phase::idle;
  Clock::time_point since{};     // when it began waiting here
  Clock::time_point deadline{};  // of the current phase
  Clock::time_point drain_end{};
  std::size_t drained = 0;
};

// Answers that fit in an empty socket buffer: sent without waiting, and dropped when they do not fit.
void send_now(int fd, const std::string& text) {
  [[maybe_unused]] const auto sent = ::send(fd, text.data(), text.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

void tune_socket(int fd) {
  const int yes = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
}

// Who a connection counts against: an IPv4 address, or an IPv6 peer's /64 (one host usually holds a
// whole /64, so counting single IPv6 addresses would limit nothing). IPv4-mapped peers count as IPv4.
std::string client_key(const sockaddr_storage& peer) {
  if (peer.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(peer);
    return std::string(reinterpret_cast<const char*>(&v4.sin_addr), 4);
  }
  if (peer.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(peer);
    const auto* bytes = reinterpret_cast<const char*>(&v6.sin6_addr);
    if (IN6_IS_ADDR_V4MAPPED(&v6.sin6_addr)) return std::string(bytes + 12, 4);
    return std::string(bytes, 8);
  }
  return {};
}

}  // namespace

struct Gate::Impl {
  Gate& owner;
  int listener;
  int wake;
  const HttpLimits& limits;
  std::size_t max_body;
  PrecheckFn precheck;
  Dispatch dispatch;
  UniqueFd epoll{::epoll_create1(EPOLL_CLOEXEC)};
  UniqueFd returns{::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  std::unordered_map<int, Waiting> waiting;
  std::unordered_map<std::string, std::size_t> per_client;  // waiting connections by client_key
  std::size_t held = 0;  // bytes received and held for the waiting connections
  Clock::time_point next_sweep = Clock::time_point::max();

  Mutex mutex;
  std::vector<std::pair<ConnectionPtr, AfterAnswers>> returned GUARDED_BY(mutex);
  bool stopped GUARDED_BY(mutex) = false;

  Impl(Gate& gate, int listener_fd, int wake_fd, const HttpLimits& l, std::size_t body_limit,
       PrecheckFn check, Dispatch d)
      : owner(gate),
        listener(listener_fd),
        wake(wake_fd),
        limits(l),
        max_body(body_limit),
        precheck(std::move(check)),
        dispatch(std::move(d)) {}

  // A connection waits to read, or (sending a body) to write; hang-ups and errors come either way.
  void watch(int fd, bool writing = false, int operation = EPOLL_CTL_ADD) {
    epoll_event event{};
    event.events = writing ? EPOLLOUT : EPOLLIN | EPOLLRDHUP;
    event.data.fd = fd;
    ::epoll_ctl(epoll.get(), operation, fd, &event);
  }

  void set_deadline(Waiting& w, Clock::time_point deadline) {
    w.deadline = deadline;
    next_sweep = std::min(next_sweep, deadline);
  }

  void forget(int fd) {
    const auto it = waiting.find(fd);
    if (it == waiting.end()) return;
    held -= it->second.connection->received.size();
    if (const auto count = per_client.find(it->second.connection->client);
        count != per_client.end() && --count->second == 0)
      per_client.erase(count);
    ::epoll_ctl(epoll.get(), EPOLL_CTL_DEL, fd, nullptr);
    waiting.erase(it);  // the last owner closes the socket
  }

  void hand_off(int fd) {
    ConnectionPtr connection = waiting.at(fd).connection;
    forget(fd);
    dispatch(std::move(connection), owner);
  }

  void start_drain(Waiting& w, Clock::time_point now) {
    if (w.phase == Phase::send) watch(w.connection->fd, false, EPOLL_CTL_MOD);
    ::shutdown(w.connection->fd, SHUT_WR);
    held -= w.connection->received.size();
    w.connection->received.clear();
    w.connection->received.shrink_to_fit();
    w.phase = Phase::drain;
    w.drain_end = now + k_drain_time;
    set_deadline(w, std::min(w.drain_end, now + k_drain_quiet));
  }

  void refuse(Waiting& w, int status, const std::string& message, Clock::time_point now) {
    send_now(w.connection->fd, plain_answer(w.connection->gather.head().method, status, message, "", true));
    start_drain(w, now);
  }

  // The connection that has waited longest (draining ones first, then idle ones) makes room: of
  // all, or of one client's.
  void evict_one(const std::string* client = nullptr) {
    const auto rank = [](const Waiting& w) {
      return w.phase == Phase::drain ? 0 : w.phase == Phase::idle ? 1 : 2;
    };
    auto victim = waiting.end();
    for (auto it = waiting.begin(); it != waiting.end(); ++it) {
      if (client && it->second.connection->client != *client) continue;
      if (victim == waiting.end() || rank(it->second) < rank(victim->second) ||
          (rank(it->second) == rank(victim->second) && it->second.since < victim->second.since))
        victim = it;
    }
    if (victim != waiting.end()) forget(victim->first);
  }

  void admit(ConnectionPtr connection, AfterAnswers after, Clock::time_point now) {
    const std::size_t per_client_limit = limits.max_connections_per_client;
    if (per_client_limit > 0) {
      const auto count = per_client.find(connection->client);
      if (count != per_client.end() && count->second >= per_client_limit) evict_one(&connection->client);
    }
    if (waiting.size() >= limits.max_connections) evict_one();
    const int fd = connection->fd;
    ++per_client[connection->client];
    Waiting& w = waiting[fd];
    w.connection = std::move(connection);
    w.since = now;
    held += w.connection->received.size();
    if (after == AfterAnswers::send && w.connection->body) {
      watch(fd, true);
      w.phase = Phase::send;
      return set_deadline(w, now + limits.write_timeout);
    }
    watch(fd);
    if (after == AfterAnswers::drain) return start_drain(w, now);
    wait_for_request(w, now);
  }

  // After an answer: what the connection has already sent decides how it waits.
  void wait_for_request(Waiting& w, Clock::time_point now) {
    const int fd = w.connection->fd;
    RequestGatherer& gather = w.connection->gather;
    if (gather.in_body()) {
      w.phase = Phase::body;
      set_deadline(w, now + limits.body_timeout);
      if (gather.take_continue()) send_now(fd, "HTTP/1.1 100 Continue\r\n\r\n");
    } else if (!w.connection->received.empty() || w.connection->answered == 0) {
      // A new connection has header_timeout for its whole head, counted from the accept.
      w.phase = Phase::head;
      set_deadline(w, now + limits.header_timeout);
    } else {
      w.phase = Phase::idle;
      set_deadline(w, now + limits.idle_timeout);
    }
  }

  void accept_ready(Clock::time_point now) {
    for (int i = 0; i < 64; ++i) {
      // Non-blocking: the gate never waits on one client, and request threads wait with deadlines.
      sockaddr_storage peer{};
      socklen_t peer_size = sizeof peer;
      const int fd =
          ::accept4(listener, reinterpret_cast<sockaddr*>(&peer), &peer_size, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) {
        // Out of descriptors: back off instead of spinning; the connection waits in the backlog.
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return;
      }
      tune_socket(fd);
      auto connection = std::make_shared<Connection>(fd, limits, max_body);
      connection->client = client_key(peer);
      admit(std::move(connection), AfterAnswers::wait, now);
    }
  }

  void take_returned(Clock::time_point now) {
    std::uint64_t count = 0;
    [[maybe_unused]] const auto n = ::read(returns.get(), &count, sizeof count);
    std::vector<std::pair<ConnectionPtr, AfterAnswers>> batch;
    {
      MutexLock lock(mutex);
      batch.swap(returned);
    }
    for (auto& [connection, after] : batch) admit(std::move(connection), after, now);
  }

  // Sends more of a body; a client that takes nothing for write_timeout is dropped (the sweep).
  void writable(int fd, Clock::time_point now) {
    const auto it = waiting.find(fd);
    if (it == waiting.end()) return;
    Waiting& w = it->second;
    UnsentBody& body = *w.connection->body;
    std::size_t sent = 0;
    switch (send_unsent_part(fd, body, k_send_per_wake, sent)) {
      case SendStep::failed:
        return forget(fd);
      case SendStep::blocked:
        if (sent > 0) set_deadline(w, now + limits.write_timeout);
        return;
      case SendStep::done:
        break;
    }
    const AfterAnswers then = body.then;
    w.connection->body.reset();
    if (then == AfterAnswers::close) return forget(fd);
    if (then == AfterAnswers::drain) return start_drain(w, now);
    watch(fd, false, EPOLL_CTL_MOD);
    w.connection->gather.reset();
    wait_for_request(w, now);
    // Requests the client sent while its body went out were received before: judge them now.
    if (!w.connection->received.empty()) judge(fd, w, false, now);
  }

  void readable(int fd, Clock::time_point now) {
    const auto it = waiting.find(fd);
    if (it == waiting.end()) return;
    Waiting& w = it->second;
    std::string& received = w.connection->received;
    char chunk[16384];
    bool ended = false;  // the client closed its side: a whole request sent before still gets its answer
    for (std::size_t taken = 0; taken < k_read_per_wake;) {
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n < 0 || (n == 0 && (w.phase == Phase::drain || received.empty()))) return forget(fd);
      if (n == 0) {
        ended = true;
        break;
      }
      taken += static_cast<std::size_t>(n);
      if (w.phase == Phase::drain) {
        w.drained += static_cast<std::size_t>(n);
        if (w.drained >= k_drain_bytes) return forget(fd);
        set_deadline(w, std::min(w.drain_end, now + k_drain_quiet));
        continue;
      }
      if (held + static_cast<std::size_t>(n) > limits.max_gathered_bytes)
        return refuse(w, 503, "server busy: too many request bytes are waiting; retry later", now);
      received.append(chunk, static_cast<std::size_t>(n));
      held += static_cast<std::size_t>(n);
    }
    if (w.phase == Phase::drain) return;
    judge(fd, w, ended, now);
  }

  // Whether what the connection has sent holds a whole request (or a refusable one) yet.
  void judge(int fd, Waiting& w, bool ended, Clock::time_point now) {
    const std::string& received = w.connection->received;
    if (w.phase == Phase::idle && !received.empty()) {
      w.phase = Phase::head;
      set_deadline(w, now + limits.header_timeout);
    }
    RequestGatherer& gather = w.connection->gather;
    switch (gather.advance(received, precheck)) {
      case GatherStep::complete:
        return hand_off(fd);
      case GatherStep::refused:
        return refuse(w, gather.status(), gather.message(), now);
      case GatherStep::incomplete:
        if (ended) return forget(fd);
        break;
    }
    if (gather.in_body() && w.phase != Phase::body) {
      w.phase = Phase::body;
      set_deadline(w, now + limits.body_timeout);
    }
    if (gather.take_continue()) send_now(fd, "HTTP/1.1 100 Continue\r\n\r\n");
  }

  // Deadlines: an idle connection is closed; a head or body that did not arrive in time is 408.
  void sweep(Clock::time_point now) {
    next_sweep = Clock::time_point::max();
    std::vector<int> expired;
    for (auto& [fd, w] : waiting) {
      if (w.deadline > now) {
        next_sweep = std::min(next_sweep, w.deadline);
      } else {
        expired.push_back(fd);
      }
    }
    for (const int fd : expired) {
      Waiting& w = waiting.at(fd);
      if (w.phase == Phase::head || w.phase == Phase::body) {
        refuse(w, 408,
               w.phase == Phase::head ? "request head not received in time"
                                      : "request body not received in time",
               now);
      } else {
        forget(fd);
      }
    }
  }

  void close_all() {
    {
      MutexLock lock(mutex);
      stopped = true;
      returned.clear();
    }
    while (!waiting.empty()) forget(waiting.begin()->first);
  }
};

Gate::Gate(int listener, int wake_fd, const HttpLimits& limits, std::size_t max_body, PrecheckFn precheck,
           Dispatch dispatch)
    : m_impl(std::make_unique<Impl>(*this, listener, wake_fd, limits, max_body, std::move(precheck),
                                    std::move(dispatch))) {}

Gate::~Gate() = default;

Status Gate::run() {
  Impl& impl = *m_impl;
  if (impl.epoll.get() < 0 || impl.returns.get() < 0)
    return fail(ErrorCategory::io,
                "cannot start the HTTP server's connection loop (epoll or eventfd failed)");
  ::fcntl(impl.listener, F_SETFL, ::fcntl(impl.listener, F_GETFL) | O_NONBLOCK);
  impl.watch(impl.listener);
  impl.watch(impl.wake);
  impl.watch(impl.returns.get());
  Status result;
  epoll_event events[64];
  for (bool stopping = false; !stopping;) {
    int timeout = -1;
    if (impl.next_sweep != Clock::time_point::max()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(impl.next_sweep - Clock::now()).count();
      timeout = static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
    }
    const int n = ::epoll_wait(impl.epoll.get(), events, 64, timeout);
    if (n < 0 && errno != EINTR) {
      result = fail(ErrorCategory::io, "the HTTP server's connection loop failed (epoll_wait)");
      break;
    }
    const auto now = Clock::now();
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == impl.wake) {
        stopping = true;
      } else if (fd == impl.listener) {
        if ((events[i].events & (EPOLLERR | EPOLLHUP)) != 0) {
          result = fail(ErrorCategory::io, "the HTTP server stopped accepting connections unexpectedly");
          stopping = true;
        } else {
          impl.accept_ready(now);
        }
      } else if (fd == impl.returns.get()) {
        impl.take_returned(now);
      } else if (const auto it = impl.waiting.find(fd);
                 it != impl.waiting.end() && it->second.phase == Phase::send) {
        impl.writable(fd, now);
      } else {
        impl.readable(fd, now);
      }
    }
    if (Clock::now() >= impl.next_sweep) impl.sweep(Clock::now());
  }
  impl.close_all();
  return result;
}

void Gate::give_back(ConnectionPtr connection, AfterAnswers after) {
  Impl& impl = *m_impl;
  {
    MutexLock lock(impl.mutex);
    if (impl.stopped) return;  // dropping it closes the socket
    impl.returned.emplace_back(std::move(connection), after);
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(impl.returns.get(), &one, sizeof one);
}

}  // namespace relforge::platform::detail
