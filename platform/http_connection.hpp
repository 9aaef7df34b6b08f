#pragma once
// Internal to platform/: serves one accepted client connection under HttpLimits. The request head
// is read, bounded and judged here; httplib then parses it and runs the handlers over our stream.
#include <httplib.h>

#include <functional>
#include <string>

#include "platform/http_head.hpp"
#include "platform/http_server.hpp"

namespace relforge::platform::detail {

// A status other than 0 answers the request without running any handler.
struct Precheck {
  int status = 0;
  std::string message{};
  std::string allow{};       // the Allow field of a 405
  bool close_after = false;  // the body (if any) will not be read: close after the answer
};

struct ConnectionHooks {
  std::function<Precheck(const RequestHead&)> precheck;
  // A chunked body is decoded here, strictly, before httplib sees the request: beyond this, 413.
  std::size_t max_body = static_cast<std::size_t>(-1);
  // httplib's process_request over `stream`.
  std::function<bool(httplib::Stream& stream, bool close_connection, bool& connection_closed,
                     const std::function<void(httplib::Request&)>& setup)>
      process;
};

// Returns when the client is done, a limit or deadline is broken, or `wake_fd` becomes readable.
// Closes `fd`.
void serve_connection(int fd, int wake_fd, const HttpLimits& limits, const ConnectionHooks& hooks);

// From a handler running under serve_connection: close the connection after this response (its
// body was not read to the end).
void close_connection_after_response();

const char* status_text(int status);

}  // namespace relforge::platform::detail
