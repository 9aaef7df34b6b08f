#pragma once
// Decodes an HTTP/1.1 chunked request body (RFC 9112 §7.1) strictly, as its bytes arrive: hex sizes
// only, CRLF exactly where the grammar puts it, trailers read and dropped. Pure; anything another
// parser could read another way is rejected, so no request can hide inside a body.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace relforge::platform {

enum class ChunkedScan { incomplete, complete, rejected };

class ChunkedDecoder {
public:
  // `max_body`: the decoded bytes allowed (413 beyond); `max_line`: a size or trailer line's bytes.
  ChunkedDecoder(std::size_t max_body, std::size_t max_line) : m_max_body(max_body), m_max_line(max_line) {}

  // Consumes bytes up to the end of the body (or the error); returns how many it took.
  std::size_t feed(std::string_view bytes);

  ChunkedScan scan() const { return m_scan; }
  const std::string& body() const { return m_body; }
  std::string take_body() { return std::move(m_body); }
  int status() const { return m_status; }  // rejected: 400 or 413
  const std::string& message() const { return m_message; }

private:
  enum class Part { size_line, data, data_end, trailer_line };
  void reject(int status, std::string message);
  void end_of_size_line();
  void end_of_trailer_line();

  std::size_t m_max_body;
  std::size_t m_max_line;
  ChunkedScan m_scan = ChunkedScan::incomplete;
  Part m_part = Part::size_line;
  std::string m_line;           // the size or trailer line read so far, without its CRLF
  std::size_t m_remaining = 0;  // data bytes left in this chunk; in data_end, CRLF bytes seen
  std::size_t m_trailer_bytes = 0;
  std::string m_body;
  int m_status = 0;
  std::string m_message;
};

}  // namespace relforge::platform
