#include "platform/url_path.hpp"

#include "core/utf8.hpp"
#include "platform/uri_chars.hpp"

namespace relforge::platform {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 3986 pchar minus pct-encoded: unreserved, sub-delims, ':' and '@'.
bool is_raw_pchar(char c) {
  return uri::is_unreserved(c) || uri::is_sub_delim(c) || c == ':' || c == '@';
}

tl::unexpected<Error> bad(const std::string& why) {
  return fail(ErrorCategory::invalid_input, "bad request path: " + why);
}

Result<std::string> decode_segment(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '%') {
      if (i + 2 >= raw.size()) return bad("'%' not followed by two hex digits");
      const int high = hex_value(raw[i + 1]);
      const int low = hex_value(raw[i + 2]);
      if (high < 0 || low < 0) return bad("'%' not followed by two hex digits");
      const auto byte = static_cast<unsigned char>(high * 16 + low);
      // An encoded separator would turn one segment into two after decoding.
      if (byte == '/' || byte == '\\') return bad("encoded '/' or '\\' inside a segment");
      if (byte < 0x20 || byte == 0x7F) return bad("encoded NUL or control character");
      out.push_back(static_cast<char>(byte));
      i += 2;
    } else if (is_raw_pchar(c)) {
      out.push_back(c);
    } else {
      return bad("character not allowed in a path");
    }
  }
  if (out == "." || out == "..") return bad("'.' or '..' segment");
  if (!core::is_valid_utf8(out)) return bad("not valid UTF-8 once decoded");
  return out;
}

}  // namespace

Result<UrlPath> decode_url_path(std::string_view target) {
  const std::size_t end = target.find_first_of("?#");
  const std::string_view raw = target.substr(0, end);
  if (raw.size() > k_max_url_path_bytes)
    return bad("longer than " + std::to_string(k_max_url_path_bytes) + " bytes");
  if (raw.empty() || raw.front() != '/') return bad("must start with '/'");
  UrlPath path;
  std::size_t start = 1;
  while (start < raw.size()) {
    const std::size_t slash = raw.find('/', start);
    const std::string_view piece =
        raw.substr(start, slash == std::string_view::npos ? raw.npos : slash - start);
    // "//x" would read as an absolute path to anything that joins it onto the root.
    if (piece.empty()) return bad("empty segment ('//')");
    auto segment = decode_segment(piece);
    if (!segment) return tl::unexpected(segment.error());
    path.segments.push_back(std::move(*segment));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  path.trailing_slash = raw.back() == '/';
  return path;
}

}  // namespace relforge::platform
