#pragma once
// Internal to platform/: one thread (epoll) holds every connection while its next request arrives.
// Heads and bodies are gathered there under the limits and deadlines, and only a whole request is
// handed to a request thread, so slow or idle clients cost memory (bounded), never a thread.
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
  // From a request thread: the connection waits here for its next request or, with `drain`, has
  // its unread input read and dropped for a moment before it closes (so the answer is not lost to
  // a reset). Once run() has returned, the connection is closed instead.
  void give_back(ConnectionPtr connection, bool drain);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace relforge::platform::detail
