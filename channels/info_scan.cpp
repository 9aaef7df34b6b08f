#include "channels/info_scan.hpp"

#include <cstdint>

namespace relforge::channels {

InfoTarget info_target(FileInfo& info, std::string_view key) {
  if (key == "filename") return {.text = &info.filename, .required = 1};
  if (key == "project") return {.text = &info.project, .required = 2};
  if (key == "version") return {.text = &info.version, .required = 4};
  if (key == "sha256") return {.text = &info.sha256, .required = 8};
  if (key == "size") return {.number = &info.size, .required = 16};
  if (key == "metadata_sha256") return {.text = &info.metadata_sha256};
  if (key == "requires_python") return {.text = &info.requires_python};
  if (key == "upload_time") return {.text = &info.upload_time};
  if (key == "yanked_reason") return {.text = &info.yanked_reason};
  if (key == "yanked") return {.flag = &info.yanked};
  if (key == "provenance") return {.flag = &info.provenance};
  return {};
}

namespace {

class PlainScanner {
public:
  explicit PlainScanner(std::string_view text) : m_text(text) {}

  std::optional<FileInfo> scan() {
    skip_space();
    if (!take('{')) return std::nullopt;
    skip_space();
    if (!take('}')) {
      do {
        skip_space();
        std::string_view key;
        if (!string(key)) return std::nullopt;
        skip_space();
        if (!take(':')) return std::nullopt;
        skip_space();
        if (!value(key)) return std::nullopt;
        skip_space();
      } while (take(','));
      if (!take('}')) return std::nullopt;
    }
    skip_space();
    if (m_at != m_text.size() || (m_seen & k_info_required) != k_info_required) return std::nullopt;
    return std::move(m_info);
  }

private:
  bool take(char c) {
    if (m_at < m_text.size() && m_text[m_at] == c) return ++m_at, true;
    return false;
  }
  bool take_word(std::string_view word) {
    if (m_text.substr(m_at, word.size()) != word) return false;
    m_at += word.size();
    return true;
  }
  void skip_space() {
    while (m_at < m_text.size() &&
           (m_text[m_at] == ' ' || m_text[m_at] == '\n' || m_text[m_at] == '\r' || m_text[m_at] == '\t'))
      ++m_at;
  }
  // Printable ASCII only: an escape, a control character or UTF-8 is left to the general parser.
  bool string(std::string_view& out) {
    if (!take('"')) return false;
    const std::size_t start = m_at;
    for (; m_at < m_text.size(); ++m_at) {
      const auto c = static_cast<unsigned char>(m_text[m_at]);
      if (c == '"') {
        out = m_text.substr(start, m_at++ - start);
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x7f) return false;
    }
    return false;
  }
  // At most 19 digits (no uint64 overflow), no leading zero, no fraction or exponent.
  bool number(std::uint64_t& out) {
    const std::size_t start = m_at;
    out = 0;
    while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9') {
      out = out * 10 + static_cast<std::uint64_t>(m_text[m_at++] - '0');
    }
    const std::size_t digits = m_at - start;
    if (digits == 0 || digits > 19 || (digits > 1 && m_text[start] == '0')) return false;
    return m_at == m_text.size() || (m_text[m_at] != '.' && m_text[m_at] != 'e' && m_text[m_at] != 'E');
  }
  // A known key takes only its own type (else the general parser names the mistake); an unknown
  // key's scalar is skipped, its object or array left to the general parser.
  bool value(std::string_view key) {
    if (m_at >= m_text.size()) return false;
    const char c = m_text[m_at];
    const InfoTarget target = info_target(m_info, key);
    const bool known = target.text != nullptr || target.flag != nullptr || target.number != nullptr;
    m_seen |= target.required;
    if (c == '"') {
      std::string_view text;
      if (!string(text) || (known && target.text == nullptr)) return false;
      if (target.text) target.text->assign(text);
      return true;
    }
    if (c == 't' || c == 'f') {
      const bool truth = c == 't';
      if (!take_word(truth ? "true" : "false") || (known && target.flag == nullptr)) return false;
      if (target.flag) *target.flag = truth;
      return true;
    }
    if (c == 'n') return !known && take_word("null");
    if (c >= '0' && c <= '9') {
      std::uint64_t n = 0;
      if (!number(n) || (known && target.number == nullptr)) return false;
      if (target.number) *target.number = n;
      return true;
    }
    return false;
  }

  std::string_view m_text;
  std::size_t m_at = 0;
  FileInfo m_info;
  unsigned m_seen = 0;
};

}  // namespace

std::optional<FileInfo> scan_plain_info(std::string_view text) {
  return PlainScanner(text).scan();
}

}  // namespace relforge::channels
