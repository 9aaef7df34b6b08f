#include "platform/http_head.hpp"

#include <charconv>

#include "core/text.hpp"

namespace relforge::platform {
namespace {

bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

bool is_token(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (!is_tchar(c)) return false;
  }
  return true;
}

// Optional whitespace is SP and HTAB only (RFC 9110); core::trim would also eat a bare CR, which
// must stay visible so the request is refused.
std::string_view ows_trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

HeadResult reject(int status, std::string message) {
  HeadResult result;
  result.scan = HeadScan::rejected;
  result.status = status;
  result.message = std::move(message);
  return result;
}

}  // namespace

std::optional<std::string> RequestHead::field(std::string_view lower_case_name) const {
  for (const auto& [name, value] : fields) {
    if (name == lower_case_name) return value;
  }
  return std::nullopt;
}

HeadResult scan_request_head(std::string_view buffer, const HeadLimits& limits) {
  // RFC 9112 §2.2: ignore empty lines before the request line (some clients send one after a body).
  std::size_t start = 0;
  while (buffer.substr(start, 2) == "\r\n" && start < limits.max_head_bytes) start += 2;
  if (start >= limits.max_head_bytes) return reject(400, "only empty lines");
  const std::string_view rest = buffer.substr(start);
  const std::size_t line_end = rest.find("\r\n");
  if (line_end == std::string_view::npos) {
    if (rest.size() > limits.max_request_line) return reject(414, "request line too long");
    if (start + rest.size() > limits.max_head_bytes) return reject(431, "request header fields too large");
    return {};
  }
  // Limits count the line with its CRLF, as httplib's own bounds do.
  if (line_end + 2 > limits.max_request_line) return reject(414, "request line too long");
  const std::size_t head_end = rest.find("\r\n\r\n");
  if (head_end == std::string_view::npos) {
    if (start + rest.size() > limits.max_head_bytes) return reject(431, "request header fields too large");
    return {};
  }
  if (start + head_end + 4 > limits.max_head_bytes) return reject(431, "request header fields too large");

  HeadResult result;
  RequestHead& head = result.head;
  head.size = start + head_end + 4;
  const std::string_view line = rest.substr(0, line_end);
  const std::size_t first_space = line.find(' ');
  const std::size_t second_space = first_space == line.npos ? line.npos : line.find(' ', first_space + 1);
  if (second_space == line.npos) return reject(400, "malformed request line");
  head.method = std::string(line.substr(0, first_space));
  head.target = std::string(line.substr(first_space + 1, second_space - first_space - 1));
  head.version = std::string(line.substr(second_space + 1));
  if (!is_token(head.method)) return reject(400, "malformed method");
  if (head.target.empty()) return reject(400, "empty request target");
  for (const char c : head.target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return reject(400, "malformed request target");
  }
  if (head.version.size() != 8 || !head.version.starts_with("HTTP/") || head.version[6] != '.' ||
      head.version[5] < '0' || head.version[5] > '9' || head.version[7] < '0' || head.version[7] > '9') {
    return reject(400, "malformed HTTP version");
  }
  if (head.version != "HTTP/1.1" && head.version != "HTTP/1.0")
    return reject(505, "HTTP version not supported");

  std::size_t position = line_end + 2;
  int lengths = 0;
  int encodings = 0;
  while (position < head_end + 2) {
    const std::size_t end = rest.find("\r\n", position);
    const std::string_view field_line = rest.substr(position, end - position);
    position = end + 2;
    if (field_line.size() + 2 > limits.max_request_line)
      return reject(431, "a header field line is too long");
    if (field_line.front() == ' ' || field_line.front() == '\t') return reject(400, "obsolete line folding");
    for (const char c : field_line) {
      if (c == '\r' || c == '\n' || c == '\0') return reject(400, "bare CR, LF or NUL in a header field");
    }
    const std::size_t colon = field_line.find(':');
    if (colon == std::string_view::npos || !is_token(field_line.substr(0, colon))) {
      return reject(400, "malformed header field");
    }
    std::string name = core::to_lower(field_line.substr(0, colon));
    const std::string value(ows_trim(field_line.substr(colon + 1)));
    if (name == "content-length") {
      ++lengths;
      std::uint64_t length = 0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
      if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() ||
          (head.content_length && *head.content_length != length)) {
        return reject(400, "malformed or conflicting Content-Length");
      }
      head.content_length = length;
    } else if (name == "transfer-encoding") {
      ++encodings;
      if (core::to_lower(value) != "chunked" || encodings > 1)
        return reject(501, "only Transfer-Encoding: chunked is supported");
      head.chunked = true;
    }
    head.fields.emplace_back(std::move(name), value);
  }
  if (lengths > 0 && encodings > 0) return reject(400, "both Content-Length and Transfer-Encoding");
  if (head.chunked && head.version == "HTTP/1.0") return reject(400, "chunked body in an HTTP/1.0 request");
  result.scan = HeadScan::complete;
  return result;
}

}  // namespace relforge::platform
