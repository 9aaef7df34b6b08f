#pragma once
// Internal to platform/: answers the whole requests gathered on one client connection, on a request
// thread. httplib parses each (a head we rebuilt, then its body) and runs the handlers over our stream.
#include <httplib.h>

#include <cstdint>
#include <functional>
#include <memory>
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
  // Answer bytes held for slow readers, all connections together (HttpLimits::max_unsent_bytes).
  ByteBudget* unsent_budget = nullptr;
};

// Answers the request at the front of `connection` (gathered whole) and any whole ones after it.
// Returns early when `wake_fd` becomes readable (the server stopping), and with `send` when a file
// body's reader is slow: the rest, in connection.body, is the gate's to send.
AfterAnswers serve_requests(Connection& connection, int wake_fd, const HttpLimits& limits,
                            const ConnectionHooks& hooks);

// From a handler running under serve_requests: close the connection after this response (its
// body was not read to the end).
void close_connection_after_response();
// From a handler running under serve_requests: after this response's head (which says its
// Content-Length), send `length` bytes of `file` from `offset` as its body.
void send_file_after_head(std::shared_ptr<const OpenEntry> file, std::uint64_t offset, std::uint64_t length);

}  // namespace relforge::platform::detail
