#include "platform/http_head.hpp"

#include <charconv>

#include "core/text.hpp"
#include "platform/uri_chars.hpp"

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

using uri::is_sub_delim;
using uri::is_unreserved;

// RFC 3986 reg-name: unreserved, sub-delims and %HH; an IPv4 address is one too.
bool is_reg_name(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%') {
      if (i + 2 >= text.size() || !uri::is_hex_digit(text[i + 1]) || !uri::is_hex_digit(text[i + 2]))
        return false;
      i += 2;
    } else if (!is_unreserved(text[i]) && !is_sub_delim(text[i])) {
      return false;
    }
  }
  return true;
}

// dec-octet "." dec-octet "." dec-octet "." dec-octet, without leading zeros.
bool is_ipv4(std::string_view text) {
  int octets = 0;
  while (true) {
    std::size_t digits = 0;
    while (digits < text.size() && uri::is_digit(text[digits])) ++digits;
    if (digits == 0 || digits > 3 || (digits > 1 && text[0] == '0')) return false;
    int value = 0;
    for (std::size_t i = 0; i < digits; ++i) value = value * 10 + (text[i] - '0');
    if (value > 255) return false;
    text.remove_prefix(digits);
    if (++octets == 4) return text.empty();
    if (text.empty() || text.front() != '.') return false;
    text.remove_prefix(1);
  }
}

// RFC 3986 IPv6address: eight 16-bit pieces, or fewer with one "::"; the last two may be an IPv4
// address. No zone identifier.
bool is_ipv6(std::string_view text) {
  int pieces = 0;
  bool elided = false;
  if (text.starts_with("::")) {
    elided = true;
    text.remove_prefix(2);
  }
  while (!text.empty()) {
    std::size_t hex = 0;
    while (hex < text.size() && uri::is_hex_digit(text[hex])) ++hex;
    if (hex < text.size() && text[hex] == '.') {
      if (!is_ipv4(text)) return false;
      pieces += 2;
      break;
    }
    if (hex == 0 || hex > 4) return false;
    ++pieces;
    text.remove_prefix(hex);
    if (text.empty()) break;
    if (text.starts_with("::")) {
      if (elided) return false;
      elided = true;
      text.remove_prefix(2);
    } else if (text.front() == ':' && text.size() > 1) {
      text.remove_prefix(1);
    } else {
      return false;
    }
  }
  return elided ? pieces <= 7 : pieces == 8;
}

// IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ).
bool is_ipv_future(std::string_view text) {
  if (text.size() < 4 || (text[0] != 'v' && text[0] != 'V')) return false;
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot < 2 || dot + 1 == text.size()) return false;
  for (std::size_t i = 1; i < dot; ++i) {
    if (!uri::is_hex_digit(text[i])) return false;
  }
  for (const char c : text.substr(dot + 1)) {
    if (!is_unreserved(c) && !is_sub_delim(c) && c != ':') return false;
  }
  return true;
}

// RFC 9112 §3.2: Host = uri-host [ ":" port ], port = *DIGIT. Empty is valid (a target without an
// authority).
bool is_host_value(std::string_view value) {
  std::string_view host = value;
  std::string_view port;
  if (value.starts_with('[')) {
    const std::size_t close = value.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view literal = value.substr(1, close - 1);
    if (!is_ipv6(literal) && !is_ipv_future(literal)) return false;
    host = {};
    port = value.substr(close + 1);
    if (!port.empty() && port.front() != ':') return false;
  } else if (const std::size_t colon = value.find(':'); colon != std::string_view::npos) {
    host = value.substr(0, colon);
    port = value.substr(colon);
  }
  if (!port.empty()) port.remove_prefix(1);
  for (const char c : port) {
    if (!uri::is_digit(c)) return false;
  }
  return is_reg_name(host);
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
  int hosts = 0;
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
    } else if (name == "host") {
      if (++hosts > 1) return reject(400, "more than one Host field");
      if (!is_host_value(value)) return reject(400, "malformed Host field: expected host[:port]");
    }
    head.fields.emplace_back(std::move(name), value);
  }
  if (lengths > 0 && encodings > 0) return reject(400, "both Content-Length and Transfer-Encoding");
  if (head.chunked && head.version == "HTTP/1.0") return reject(400, "chunked body in an HTTP/1.0 request");
  if (hosts == 0 && head.version == "HTTP/1.1") return reject(400, "HTTP/1.1 request without a Host field");
  result.scan = HeadScan::complete;
  return result;
}

}  // namespace relforge::platform
