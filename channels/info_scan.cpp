#include "channels/info_scan.hpp"

#include <cstdint>

namespace relforge::channels {
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
    if (m_at != m_text.size() || (m_seen & k_required) != k_required) return std::nullopt;
    return std::move(m_info);
  }

private:
  static constexpr unsigned k_filename = 1, k_project = 2, k_version = 4, k_sha256 = 8, k_size = 16;
  static constexpr unsigned k_required = k_filename | k_project | k_version | k_sha256 | k_size;

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
  std::string* string_field(std::string_view key) {
    if (key == "filename") return m_seen |= k_filename, &m_info.filename;
    if (key == "project") return m_seen |= k_project, &m_info.project;
    if (key == "version") return m_seen |= k_version, &m_info.version;
    if (key == "sha256") return m_seen |= k_sha256, &m_info.sha256;
    if (key == "metadata_sha256") return &m_info.metadata_sha256;
    if (key == "requires_python") return &m_info.requires_python;
    if (key == "upload_time") return &m_info.upload_time;
    if (key == "yanked_reason") return &m_info.yanked_reason;
    return nullptr;
  }
  bool* bool_field(std::string_view key) {
    if (key == "yanked") return &m_info.yanked;
    if (key == "provenance") return &m_info.provenance;
    return nullptr;
  }
  // A known key takes only its own type (else the general parser names the mistake); an unknown
  // key's scalar is skipped, its object or array left to the general parser.
  bool value(std::string_view key) {
    if (m_at >= m_text.size()) return false;
    const char c = m_text[m_at];
    std::string* text_field = string_field(key);
    bool* flag = bool_field(key);
    const bool is_size = key == "size";
    const bool known = text_field != nullptr || flag != nullptr || is_size;
    if (c == '"') {
      std::string_view text;
      if (!string(text) || (known && text_field == nullptr)) return false;
      if (text_field) text_field->assign(text);
      return true;
    }
    if (c == 't' || c == 'f') {
      const bool truth = c == 't';
      if (!take_word(truth ? "true" : "false") || (known && flag == nullptr)) return false;
      if (flag) *flag = truth;
      return true;
    }
    if (c == 'n') return !known && take_word("null");
    if (c >= '0' && c <= '9') {
      std::uint64_t n = 0;
      if (!number(n) || (known && !is_size)) return false;
      if (is_size) m_info.size = n, m_seen |= k_size;
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
