#pragma once
// Internal to platform/: one thread (epoll) holds every connection while its next request arrives
// (gathered under the limits: only a whole request takes a request thread) or while a slow reader
// takes a file body, so slow or idle clients cost bounded memory and descriptors, never a thread.
#include <functional>
#include <memory>

#include "core/error.hpp"
#include "platform/http_gather.hpp"

namespace relforge::platform::detail {

class Gate {
public:
  // Gets each connection whose buffer starts with a whole request (gathered), to give it back later.
  using Dispatch = std::function<void(ConnectionPtr, Gate&)>;
  Gate(int listener, int wake_fd, const HttpLimits& limits, std::size_t max_body, PrecheckFn precheck,
       Dispatch dispatch);
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  // Accepts and gathers until `wake_fd` becomes readable; then closes what it holds.
  Status run();
  // From a request thread: the connection waits here for its next request (`wait`); or, with
  // `drain`, has its unread input read and dropped for a moment before it closes (so the answer is
  // not lost to a reset); or, with `send`, gets the rest of its file body sent as the client reads
  // it, then what the body's `then` says. Once run() has returned, the connection is closed instead.
  void give_back(ConnectionPtr connection, AfterAnswers after);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace relforge::platform::detail
