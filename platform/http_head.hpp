#pragma once
// Reads the head of an HTTP/1.x request (request line + header fields) out of the bytes received
// so far, within size limits, and judges its framing before any body byte is read. Pure.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace relforge::platform {

struct HeadLimits {
  // With its CRLF; longer: 414 (a longer header field line: 431). httplib's own bound is 8192.
  std::size_t max_request_line = 8192;
  std::size_t max_head_bytes = 32768;  // request line + all fields; larger: 431
};

struct RequestHead {
  std::string method{};
  std::string target{};  // raw, as sent
  std::string version{};
  std::vector<std::pair<std::string, std::string>> fields{};  // names lower-cased, values trimmed
  std::optional<std::uint64_t> content_length{};
  bool chunked = false;
  std::size_t size = 0;  // bytes of the head in the buffer, through the blank line

  std::optional<std::string> field(std::string_view lower_case_name) const;
};

enum class HeadScan { incomplete, complete, rejected };

struct HeadResult {
  HeadScan scan = HeadScan::incomplete;
  RequestHead head{};
  int status = 0;  // rejected: 400, 414, 431, 501 or 505
  std::string message{};
};

// A rejected head ends the connection: its framing cannot be trusted. Smuggling shapes
// (Content-Length with Transfer-Encoding, differing Content-Lengths, obs-fold, bare CR/LF) are 400.
HeadResult scan_request_head(std::string_view buffer, const HeadLimits& limits);

}  // namespace relforge::platform
