#include <algorithm>

#include <nlohmann/json.hpp>

#include "channels/info_scan.hpp"
#include "channels/store.hpp"
#include "core/utf8.hpp"

namespace relforge::channels {
namespace {

using Json = nlohmann::json;

// Fills a FileInfo straight from the parser's events, for the spellings scan_plain_info leaves to
// it (escapes, UTF-8, nesting) and to name what is wrong with a bad record.
class InfoReader final : public nlohmann::json_sax<Json> {
public:
  explicit InfoReader(FileInfo& info) : m_info(info) {}

  bool null() override { return scalar(Kind::null); }
  bool boolean(bool value) override {
    if (!scalar(Kind::boolean)) return false;
    if (m_depth == 1 && m_target.flag) *m_target.flag = value;
    return true;
  }
  bool number_integer(number_integer_t value) override {
    if (value < 0) return wrong_type("a non-negative integer");
    return number_unsigned(static_cast<number_unsigned_t>(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    if (!scalar(Kind::number)) return false;
    if (m_depth == 1 && m_target.number) *m_target.number = value;
    return true;
  }
  bool number_float(number_float_t, const string_t&) override { return scalar(Kind::other); }
  bool string(string_t& value) override {
    if (!scalar(Kind::string)) return false;
    if (m_depth == 1 && m_target.text) *m_target.text = std::move(value);
    return true;
  }
  bool binary(binary_t&) override { return scalar(Kind::other); }
  bool start_object(std::size_t) override {
    if (m_depth == 0) {
      m_depth = 1;
      return true;
    }
    if (!scalar(Kind::other)) return false;
    ++m_depth;
    return true;
  }
  bool end_object() override {
    --m_depth;
    return true;
  }
  bool start_array(std::size_t) override {
    if (m_depth == 0) return wrong_type("an object at the top level");
    if (!scalar(Kind::other)) return false;
    ++m_depth;
    return true;
  }
  bool end_array() override {
    --m_depth;
    return true;
  }
  bool key(string_t& value) override {
    if (m_depth == 1) {
      m_key = std::move(value);
      m_target = info_target(m_info, m_key);
      m_seen |= m_target.required;
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override {
    m_problem = error.what();
    return false;
  }

  const std::string& problem() const { return m_problem; }
  bool complete() {
    if ((m_seen & k_info_required) == k_info_required) return true;
    m_problem = "a required key (filename, project, version, sha256, size) is missing";
    return false;
  }

private:
  enum class Kind { null, boolean, number, string, other };

  // A value at depth 1 belongs to m_key; deeper values (inside an unknown key's object) are skipped.
  bool scalar(Kind kind) {
    if (m_depth == 0) return wrong_type("an object at the top level");
    if (m_depth > 1) return true;
    const Kind expected = expected_kind();
    if (expected == Kind::other || expected == kind) return true;
    return wrong_type(expected == Kind::string   ? "a string"
                      : expected == Kind::number ? "a non-negative integer"
                                                 : "true or false");
  }
  Kind expected_kind() const {
    if (m_target.text) return Kind::string;
    if (m_target.flag) return Kind::boolean;
    if (m_target.number) return Kind::number;
    return Kind::other;
  }
  bool wrong_type(const char* expected) {
    m_problem = m_depth == 0 ? std::string("expected ") + expected : "'" + m_key + "' must be " + expected;
    return false;
  }

  FileInfo& m_info;
  std::string m_key;
  InfoTarget m_target;
  std::string m_problem;
  unsigned m_seen = 0;
  int m_depth = 0;
};

bool sha256_hex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

bool valid_yank_reason(std::string_view reason) {
  const bool control = std::any_of(reason.begin(), reason.end(), [](char c) {
    return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == '\x7f';
  });
  return core::is_valid_utf8(reason) && !control;
}

std::optional<std::string> record_problem(const FileInfo& info, std::string_view stored_name) {
  if (info.filename != stored_name)
    return "the record names " + info.filename + ", not " + std::string(stored_name);
  if (!sha256_hex(info.sha256)) return std::string("its sha256 is not 64 lowercase hex digits");
  if (!info.metadata_sha256.empty() && !sha256_hex(info.metadata_sha256))
    return std::string("its metadata_sha256 is not 64 lowercase hex digits");
  if (!valid_yank_reason(info.yanked_reason))
    return std::string("its yank reason is not one line of UTF-8 text without control characters");
  return std::nullopt;
}

std::string info_to_json(const FileInfo& info) {
  const nlohmann::ordered_json json = {{"filename", info.filename},
                                       {"project", info.project},
                                       {"version", info.version},
                                       {"sha256", info.sha256},
                                       {"size", info.size},
                                       {"metadata_sha256", info.metadata_sha256},
                                       {"requires_python", info.requires_python},
                                       {"upload_time", info.upload_time},
                                       {"yanked", info.yanked},
                                       {"yanked_reason", info.yanked_reason},
                                       {"provenance", info.provenance}};
  return json.dump(1) + "\n";
}

Result<FileInfo> info_from_json(std::string_view text, const std::string& where) {
  if (auto plain = scan_plain_info(text)) return std::move(*plain);
  FileInfo info;
  InfoReader reader(info);
  if (!Json::sax_parse(text, &reader) || !reader.complete()) {
    return fail(ErrorCategory::integrity, where + " is not a valid file record: " + reader.problem() +
                                              " (re-publish the file or run 'relforge index rebuild')");
  }
  return info;
}

}  // namespace relforge::channels
