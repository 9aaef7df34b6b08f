#include "platform/http_gather.hpp"

#include <unistd.h>

#include "core/text.hpp"

namespace relforge::platform::detail {

GatherStep RequestGatherer::refuse(int status, std::string message) {
  m_part = Part::done;
  m_status = status;
  m_message = std::move(message);
  return GatherStep::refused;
}

GatherStep RequestGatherer::finish(std::size_t size) {
  m_part = Part::done;
  m_size = size;
  return GatherStep::complete;
}

GatherStep RequestGatherer::advance(std::string_view received, const PrecheckFn& precheck) {
  if (m_part == Part::done) return m_status != 0 ? GatherStep::refused : GatherStep::complete;
  if (m_part == Part::head) {
    HeadResult scanned =
        scan_request_head(received, HeadLimits{m_limits.max_request_line, m_limits.max_head_bytes});
    if (scanned.scan == HeadScan::incomplete) return GatherStep::incomplete;
    if (scanned.scan == HeadScan::rejected) return refuse(scanned.status, std::move(scanned.message));
    m_head = std::move(scanned.head);
    m_check = precheck(m_head);
    if (m_check.status != 0 || !m_check.read_body) return finish(m_head.size);
    if (m_head.chunked) {
      m_chunked.emplace(m_max_body, m_limits.max_request_line);
    } else if (m_head.content_length.value_or(0) > m_max_body) {
      return refuse(413, "request body too large: the limit is " + std::to_string(m_max_body) + " bytes");
    }
    m_continue_wanted = core::to_lower(m_head.field("expect").value_or("")) == "100-continue";
    m_part = Part::body;
  }
  if (!m_chunked) {
    const std::size_t whole = m_head.size + static_cast<std::size_t>(m_head.content_length.value_or(0));
    return received.size() >= whole ? finish(whole) : GatherStep::incomplete;
  }
  m_fed += m_chunked->feed(received.substr(m_head.size + m_fed));
  switch (m_chunked->scan()) {
    case ChunkedScan::complete:
      m_decoded = m_chunked->take_body();
      return finish(m_head.size + m_fed);
    case ChunkedScan::rejected:
      return refuse(m_chunked->status(), m_chunked->message());
    case ChunkedScan::incomplete:
      break;
  }
  return GatherStep::incomplete;
}

void RequestGatherer::reset() {
  m_part = Part::head;
  m_head = {};
  m_check = {};
  m_chunked.reset();
  m_fed = 0;
  m_decoded.clear();
  m_size = 0;
  m_continue_wanted = false;
  m_status = 0;
  m_message.clear();
}

bool RequestGatherer::take_continue() {
  if (m_part != Part::body || !m_continue_wanted) return false;
  m_continue_wanted = false;
  return true;
}

Connection::~Connection() {
  if (fd >= 0) ::close(fd);
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
    case 503:
      return "Service Unavailable";
    case 501:
      return "Not Implemented";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

std::string plain_answer(const std::string& method, int status, const std::string& message,
                         const std::string& allow, bool close) {
  const std::string body = message + "\n";
  std::string text = "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) + "\r\n";
  text += "Content-Type: text/plain; charset=utf-8\r\n";
  text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  if (!allow.empty()) text += "Allow: " + allow + "\r\n";
  if (close) text += "Connection: close\r\n";
  text += "\r\n";
  if (method != "HEAD") text += body;
  return text;
}

}  // namespace relforge::platform::detail
