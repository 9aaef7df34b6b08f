#pragma once
// Tolerant field access for GitHub payloads: a missing or mistyped field reads as empty/absent;
// and the one serialisation of JSON the relay answers or sends (never throws on encoding).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace relforge::ci_relay {

// The deepest JSON the relay takes from a webhook, a result or a replay log (GitHub's payloads
// nest under 10): nlohmann's dump and copies recurse once per level, so deeper input is refused
// before it becomes a document.
inline constexpr std::size_t k_max_json_nesting = 64;

inline const nlohmann::json& field(const nlohmann::json& object, const char* key) {
  static const nlohmann::json k_null;
  if (!object.is_object()) return k_null;
  auto it = object.find(key);
  return it == object.end() ? k_null : *it;
}

inline std::string text_field(const nlohmann::json& object, const char* key) {
  const auto& value = field(object, key);
  return value.is_string() ? value.get<std::string>() : std::string();
}

inline std::optional<std::string> optional_text(const nlohmann::json& object, const char* key) {
  const auto& value = field(object, key);
  if (!value.is_string()) return std::nullopt;
  return value.get<std::string>();
}

inline std::optional<std::int64_t> int_field(const nlohmann::json& object, const char* key) {
  const auto& value = field(object, key);
  if (!value.is_number_integer()) return std::nullopt;
  return value.get<std::int64_t>();
}

// Compact JSON; bytes that are not UTF-8 (header values, log lines, stored rows) become U+FFFD
// instead of throwing, so no answer fails on what an attacker or a log put into a string.
inline std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace relforge::ci_relay
