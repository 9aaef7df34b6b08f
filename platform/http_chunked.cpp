#include "platform/http_chunked.hpp"

#include <algorithm>

namespace relforge::platform {
namespace {

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

unsigned hex_value(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  return static_cast<unsigned>((c | 0x20) - 'a' + 10);
}

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return (byte < 0x20 && c != '\t') || byte == 0x7f;
}

}  // namespace

void ChunkedDecoder::reject(int status, std::string message) {
  m_scan = ChunkedScan::rejected;
  m_status = status;
  m_message = std::move(message);
}

// chunk-size [ BWS ";" chunk-ext ]: 1*HEXDIG, then nothing or an extension (ignored).
void ChunkedDecoder::end_of_size_line() {
  std::size_t at = 0;
  std::size_t size = 0;
  while (at < m_line.size() && is_hex(m_line[at])) {
    if (size > (m_max_body >> 4)) {
      return reject(413, "request body too large: the limit is " + std::to_string(m_max_body) + " bytes");
    }
    size = (size << 4) | hex_value(m_line[at++]);
  }
  if (at == 0) return reject(400, "bad chunked body: a chunk size must start with hex digits");
  std::size_t rest = at;
  while (rest < m_line.size() && (m_line[rest] == ' ' || m_line[rest] == '\t')) ++rest;
  if (rest < m_line.size() && m_line[rest] != ';')
    return reject(400, "bad chunked body: unexpected text after a chunk size");
  if (rest == m_line.size() && rest != at)
    return reject(400, "bad chunked body: whitespace after a chunk size without an extension");
  if (std::any_of(m_line.begin() + static_cast<std::ptrdiff_t>(rest), m_line.end(), is_control))
    return reject(400, "bad chunked body: a control byte in a chunk extension");
  if (size > m_max_body - m_body.size())
    return reject(413, "request body too large: the limit is " + std::to_string(m_max_body) + " bytes");
  m_line.clear();
  m_remaining = size;
  m_part = size == 0 ? Part::trailer_line : Part::data;
}

// A trailer field line (read and dropped), or the empty line that ends the body.
void ChunkedDecoder::end_of_trailer_line() {
  if (m_line.empty()) {
    m_scan = ChunkedScan::complete;
    return;
  }
  const auto colon = m_line.find(':');
  if (colon == 0 || colon == std::string::npos || m_line.front() == ' ' || m_line.front() == '\t')
    return reject(400, "bad chunked body: a trailer line is not a header field");
  if (std::any_of(m_line.begin(), m_line.end(), is_control))
    return reject(400, "bad chunked body: a control byte in a trailer field");
  m_line.clear();
}

std::size_t ChunkedDecoder::feed(std::string_view bytes) {
  std::size_t at = 0;
  while (at < bytes.size() && m_scan == ChunkedScan::incomplete) {
    if (m_part == Part::data) {
      const std::size_t take = std::min(m_remaining, bytes.size() - at);
      m_body.append(bytes.substr(at, take));
      at += take;
      m_remaining -= take;
      if (m_remaining == 0) m_part = Part::data_end;
      continue;
    }
    const char c = bytes[at++];
    if (m_part == Part::data_end) {
      // Exactly CRLF after the data: anything else is where smuggled requests start.
      if (c != (m_remaining == 0 ? '\r' : '\n')) {
        reject(400, "bad chunked body: a chunk's data is not followed by CRLF");
      } else if (++m_remaining == 2) {
        m_remaining = 0;
        m_part = Part::size_line;
      }
      continue;
    }
    if (c == '\n') {
      if (m_line.empty() || m_line.back() != '\r') {
        reject(400, "bad chunked body: a line ends in a bare LF");
        continue;
      }
      m_line.pop_back();
      if (m_part == Part::size_line)
        end_of_size_line();
      else
        end_of_trailer_line();
      continue;
    }
    if (!m_line.empty() && m_line.back() == '\r') {
      reject(400, "bad chunked body: a bare CR");
    } else if (m_line.size() == m_max_line) {
      reject(400, "bad chunked body: a line is longer than " + std::to_string(m_max_line) + " bytes");
    } else if (m_part == Part::trailer_line && ++m_trailer_bytes > 4 * m_max_line) {
      reject(400, "bad chunked body: the trailer section is too long");
    } else {
      m_line.push_back(c);
    }
  }
  return at;
}

}  // namespace relforge::platform
