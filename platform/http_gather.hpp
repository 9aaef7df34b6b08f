#pragma once
// Internal to platform/: judges whether the bytes received on a connection hold one whole request
// (its head, and the body the head frames, within the limits), so that only whole requests take a
// request thread. Pure apart from the precheck it is given.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "platform/http_chunked.hpp"
#include "platform/http_head.hpp"
#include "platform/http_server.hpp"
#include "platform/http_unsent_body.hpp"

namespace relforge::platform::detail {

// What the server says of a head before any body byte is read. A status other than 0 answers the
// request without running any handler.
struct Precheck {
  int status = 0;
  std::string message{};
  std::string allow{};       // the Allow field of a 405
  bool close_after = false;  // the body (if any) will not be read: close after the answer
  bool read_body = false;    // the body is read (and must arrive) before the handler runs
};

using PrecheckFn = std::function<Precheck(const RequestHead&)>;

enum class GatherStep { incomplete, complete, refused };

class RequestGatherer {
public:
  RequestGatherer(const HttpLimits& limits, std::size_t max_body) : m_limits(limits), m_max_body(max_body) {}

  // Looks again at `received` (the request starts at its first byte) after more bytes arrived.
  // complete: head(), check() and size() describe it. refused: status() and message() are the
  // answer, and the connection closes after it.
  GatherStep advance(std::string_view received, const PrecheckFn& precheck);
  // Forgets the request, for the next one on the connection.
  void reset();

  bool in_body() const { return m_part == Part::body; }
  // True once, while the body is awaited, for a head that asked for "Expect: 100-continue".
  bool take_continue();

  const RequestHead& head() const { return m_head; }
  const Precheck& check() const { return m_check; }
  std::size_t size() const { return m_size; }        // the request's bytes as received
  std::string& decoded_body() { return m_decoded; }  // a chunked body, decoded
  int status() const { return m_status; }
  const std::string& message() const { return m_message; }

private:
  enum class Part { head, body, done };
  GatherStep refuse(int status, std::string message);
  GatherStep finish(std::size_t size);

  const HttpLimits& m_limits;
  std::size_t m_max_body;
  Part m_part = Part::head;
  RequestHead m_head{};
  Precheck m_check{};
  std::optional<ChunkedDecoder> m_chunked{};
  std::size_t m_fed = 0;  // raw body bytes the chunked decoder has taken
  std::string m_decoded{};
  std::size_t m_size = 0;
  bool m_continue_wanted = false;
  int m_status = 0;
  std::string m_message{};
};

// An accepted client connection with what it has sent and not yet been answered for. It is held by
// the gate while a request arrives and by one request thread while it is answered.
struct Connection {
  Connection(int socket, const HttpLimits& limits, std::size_t max_body)
      : fd(socket), gather(limits, max_body) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd;
  std::string client{};    // the peer's address bytes (an IPv6 peer's first 64 bits): one client
  std::string received{};  // the request being gathered starts at byte 0
  RequestGatherer gather;
  std::size_t answered = 0;          // requests answered on this connection
  std::optional<UnsentBody> body{};  // the rest of an answer, still to be sent
};

using ConnectionPtr = std::shared_ptr<Connection>;

const char* status_text(int status);
// The plain-text answer the server gives without a handler (errors, 100 Continue aside).
std::string plain_answer(const std::string& method, int status, const std::string& message,
                         const std::string& allow, bool close);

}  // namespace relforge::platform::detail
