#include "packaging/wheel_record.hpp"

#include <charconv>

#include "core/text.hpp"

namespace relforge::packaging {
namespace {

// One CSV line into fields; quotes double themselves inside a quoted field.
Result<std::vector<std::string>> csv_fields(std::string_view line, std::size_t line_number) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted)
    return fail(ErrorCategory::invalid_input,
                "RECORD line " + std::to_string(line_number) + ": unterminated quote");
  return fields;
}

// Python's csv writer (QUOTE_MINIMAL) quotes a field holding the delimiter, a quote or a line break.
std::string csv_quote(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  return '"' + core::replace_all(field, "\"", "\"\"") + '"';
}

}  // namespace

Result<std::vector<RecordEntry>> parse_record(std::string_view text) {
  std::vector<RecordEntry> entries;
  std::size_t line_number = 0;
  for (auto line : core::split(text, '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    auto fields = csv_fields(line, line_number);
    if (!fields) return tl::unexpected(fields.error());
    if (fields->size() != 3) {
      return fail(ErrorCategory::invalid_input,
                  "RECORD line " + std::to_string(line_number) + " has " + std::to_string(fields->size()) +
                      " fields, expected path,hash,size: '" + std::string(line) + "'");
    }
    RecordEntry entry{(*fields)[0], (*fields)[1], std::nullopt};
    const auto& size = (*fields)[2];
    if (!size.empty()) {
      std::uint64_t value = 0;
      const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), value);
      if (ec != std::errc() || end != size.data() + size.size()) {
        return fail(ErrorCategory::invalid_input,
                    "RECORD line " + std::to_string(line_number) + ": size '" + size + "' is not a number");
      }
      entry.size = value;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string format_record(const std::vector<RecordEntry>& entries) {
  std::string out;
  for (const auto& entry : entries) {
    out += csv_quote(entry.path) + ',' + csv_quote(entry.hash) + ',';
    if (entry.size) out += std::to_string(*entry.size);
    out += '\n';
  }
  return out;
}

std::string record_hash(const platform::Sha256Digest& digest) {
  return "sha256=" + platform::base64url_nopad(digest);
}

std::string record_hash_of(std::string_view bytes) {
  return record_hash(platform::sha256(bytes));
}

Result<RecordAlgorithm> record_algorithm(std::string_view hash) {
  const auto name = hash.substr(0, hash.find('='));
  if (name == "sha256") return RecordAlgorithm::sha256;
  if (name == "sha384") return RecordAlgorithm::sha384;
  if (name == "sha512") return RecordAlgorithm::sha512;
  return fail(ErrorCategory::integrity, "RECORD hash '" + std::string(hash) + "' uses '" + std::string(name) +
                                            "': a wheel's RECORD needs sha256, sha384 or sha512");
}

RecordHasher::RecordHasher(RecordAlgorithm algorithm) : m_algorithm(algorithm) {
  if (algorithm == RecordAlgorithm::sha256)
    m_sha256.emplace();
  else
    m_wide.emplace(algorithm == RecordAlgorithm::sha384 ? platform::WideAlgorithm::sha384
                                                        : platform::WideAlgorithm::sha512);
}

void RecordHasher::update(std::string_view bytes) {
  if (m_sha256)
    m_sha256->update(bytes);
  else
    m_wide->update(bytes);
}

std::string RecordHasher::finish() {
  if (m_sha256) return record_hash(m_sha256->finish());
  const std::string name = m_algorithm == RecordAlgorithm::sha384 ? "sha384=" : "sha512=";
  return name + platform::base64url_nopad(m_wide->finish());
}

std::string record_hash_of(std::string_view bytes, RecordAlgorithm algorithm) {
  RecordHasher hasher(algorithm);
  hasher.update(bytes);
  return hasher.finish();
}

Status check_archive_path(std::string_view path) {
  const std::string shown(path);
  if (path.empty()) return fail(ErrorCategory::invalid_input, "an entry has an empty name");
  if (path.front() == '/')
    return fail(ErrorCategory::invalid_input,
                "entry '" + shown + "' is an absolute path (zip-slip): refusing it");
  if (path.find('\\') != std::string_view::npos)
    return fail(ErrorCategory::invalid_input, "entry '" + shown + "' contains a backslash: refusing it");
  // "C:/x" is a drive on Windows and "a.py:stream" an NTFS stream: either writes outside the path.
  if (path.find(':') != std::string_view::npos)
    return fail(ErrorCategory::invalid_input,
                "entry '" + shown + "' contains a ':' (a Windows drive or NTFS stream): refusing it");
  const auto parts = core::split(path, '/');
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto part = parts[i];
    // "demo//x.py" is "demo/x.py" on disk: two entries, one file. Only a folder entry's name ends
    // in the one empty component its trailing '/' makes.
    if (part.empty() && i + 1 < parts.size())
      return fail(ErrorCategory::invalid_input,
                  "entry '" + shown + "' has an empty component ('//'): refusing it");
    if (part == "..")
      return fail(ErrorCategory::invalid_input,
                  "entry '" + shown + "' has a '..' component (zip-slip): refusing it");
    if (part == ".")
      return fail(ErrorCategory::invalid_input, "entry '" + shown + "' has a '.' component: refusing it");
  }
  return {};
}

}  // namespace relforge::packaging
