#pragma once
// Internal to platform/: answers the whole requests gathered on one client connection, on a request
// thread. httplib parses each (a head we rebuilt, then its body) and runs the handlers over our stream.
#include <httplib.h>

#include <functional>
#include <string>

#include "platform/http_gather.hpp"
#include "platform/http_server.hpp"

namespace relforge::platform::detail {

struct ConnectionHooks {
  PrecheckFn precheck;
  // httplib's process_request over `stream`.
  std::function<bool(httplib::Stream& stream, bool close_connection, bool& connection_closed,
                     const std::function<void(httplib::Request&)>& setup)>
      process;
  // Whether whole requests of other connections wait for a thread: then a kept-alive connection
  // goes back to the gate at once instead of holding its thread for its next request a moment.
  std::function<bool()> others_waiting;
};

// What becomes of a connection once its requests are answered.
enum class AfterAnswers {
  close,  // done (the client asked, or a limit): close it
  wait,   // kept alive: back to the gate for the next request
  drain,  // its input was not all read: drop what is in flight for a moment, then close
};

// Answers the request at the front of `connection` (gathered whole) and any whole ones after it.
// Returns early when `wake_fd` becomes readable (the server stopping).
AfterAnswers serve_requests(Connection& connection, int wake_fd, const HttpLimits& limits,
                            const ConnectionHooks& hooks);

// From a handler running under serve_requests: close the connection after this response (its
// body was not read to the end).
void close_connection_after_response();

}  // namespace relforge::platform::detail
