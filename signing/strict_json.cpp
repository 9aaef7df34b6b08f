#include "signing/strict_json.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace relforge::signing {
namespace {

using JsonValue = nlohmann::json;

// Go's encoding/json matches a key to a struct field by Unicode simple case folding, so besides
// ASCII case the two letters whose fold set holds an ASCII letter match it too: U+017F (long s)
// matches "s" and U+212A (Kelvin sign) matches "k". Field names are ASCII, so no other fold can make
// two keys one field.
std::string folded_key(const std::string& key) {
  std::string out;
  out.reserve(key.size());
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (key.compare(i, 2, "\xC5\xBF") == 0) {
      out += 's';
      i += 1;
    } else if (key.compare(i, 3, "\xE2\x84\xAA") == 0) {
      out += 'k';
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// One pass over the text before any DOM is built: nesting and repeated keys.
class StrictScan final : public nlohmann::json_sax<JsonValue> {
public:
  std::string problem;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    m_keys.emplace_back();
    return enter();
  }
  bool key(string_t& key) override {
    const auto [at, fresh] = m_keys.back().insert(folded_key(key));
    if (fresh) return true;
    problem = "repeats the key '" + key + "' in one object (readers disagree on which one counts)";
    return false;
  }
  bool end_object() override {
    m_keys.pop_back();
    --m_depth;
    return true;
  }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override {
    --m_depth;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& error) override {
    if (problem.empty())
      problem = "is not valid JSON at byte " + std::to_string(position) + " (" + error.what() + ")";
    return false;
  }

private:
  bool enter() {
    if (++m_depth <= k_max_json_depth) return true;
    problem = "nests deeper than " + std::to_string(k_max_json_depth) + " levels";
    return false;
  }
  std::size_t m_depth = 0;
  std::vector<std::set<std::string>> m_keys;
};

}  // namespace

Result<JsonValue> parse_strict_json(std::string_view text, std::string_view what, std::size_t max_bytes) {
  const std::string name(what);
  if (text.size() > max_bytes) {
    return fail(ErrorCategory::integrity, name + " is " + std::to_string(text.size()) +
                                              " bytes, over the limit of " + std::to_string(max_bytes) +
                                              "; it was not written by relforge sign");
  }
  if (text.starts_with("\xEF\xBB\xBF")) {
    return fail(ErrorCategory::integrity,
                name + " starts with a byte-order mark, which JSON does not allow; write it without one");
  }
  // nlohmann's lexer takes a NUL for the end of the input, so whatever follows one would go unread
  // here while another reader refuses it or reads on; JSON text never holds a raw NUL (a string
  // spells it \u0000).
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    return fail(ErrorCategory::integrity,
                name + " has a NUL byte at byte " + std::to_string(nul) + ", which JSON text never holds");
  }
  StrictScan scan;
  const bool whole =
      JsonValue::sax_parse(text.begin(), text.end(), &scan, JsonValue::input_format_t::json, true);
  if (!whole || !scan.problem.empty()) {
    return fail(ErrorCategory::integrity,
                name + " " + (scan.problem.empty() ? "is not valid JSON" : scan.problem));
  }
  auto parsed = JsonValue::parse(text.begin(), text.end(), nullptr, false);
  if (parsed.is_discarded()) return fail(ErrorCategory::integrity, name + " is not valid JSON");
  return parsed;
}

std::string first_key_outside(const JsonValue& object, std::initializer_list<std::string_view> allowed) {
  if (!object.is_object()) return {};
  for (const auto& item : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) return item.key();
  }
  return {};
}

}  // namespace relforge::signing
