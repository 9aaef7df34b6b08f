#include "platform/toml_reader.hpp"

#include <algorithm>
#include <charconv>

#include "core/text.hpp"

namespace relforge::platform {

Location TomlReader::location(const toml::node& node) {
  return {node.source().begin.line, node.source().begin.column};
}

Location TomlReader::location(const toml::key& key) {
  return {key.source().begin.line, key.source().begin.column};
}

tl::unexpected<Error> TomlReader::fail(Location at, std::string message) const {
  return fail_at(m_file, at, std::move(message));
}

std::vector<std::pair<const toml::key*, const toml::node*>> TomlReader::ordered(const toml::table& table) {
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (auto&& [key, node] : table) entries.emplace_back(&key, &node);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto pa = a.first->source().begin, pb = b.first->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return entries;
}

Status TomlReader::check_keys(const toml::table& table, const std::vector<std::string>& allowed,
                              std::string_view context) const {
  for (const auto& [key, node] : ordered(table)) {
    const std::string_view name = key->str();
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    return fail(location(*key), "unknown key '" + std::string(name) + "' in " + std::string(context) +
                                    suggestion(name, allowed));
  }
  return {};
}

std::string TomlReader::type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

Result<std::string> TomlReader::string(const toml::node& node, std::string_view what) const {
  if (const auto* text = node.as_string()) return text->get();
  std::string hint;
  if (node.is_number()) hint = " (quote it: TOML reads 3.10 as the number 3.1)";
  return fail(location(node), std::string(what) + " must be a string, not " + type_name(node) + hint);
}

Result<std::string> TomlReader::scalar(const toml::node& node, std::string_view what) const {
  if (const auto* text = node.as_string()) return text->get();
  if (const auto* integer = node.as_integer()) return std::to_string(integer->get());
  if (const auto* boolean = node.as_boolean()) return std::string(boolean->get() ? "true" : "false");
  if (const auto* number = node.as_floating_point()) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, number->get());
    return std::string(buffer, result.ptr);
  }
  return fail(location(node),
              std::string(what) + " must be a string, integer, float or boolean, not " + type_name(node));
}

Result<std::vector<std::string>> TomlReader::strings(const toml::node& node, std::string_view what) const {
  std::vector<std::string> out;
  if (const auto* array = node.as_array()) {
    if (array->empty()) return fail(location(node), std::string(what) + " is an empty list");
    for (const auto& element : *array) {
      auto text = string(element, std::string(what) + " (each element)");
      if (!text) return tl::unexpected(text.error());
      out.push_back(std::move(*text));
    }
    return out;
  }
  if (const auto* text = node.as_string()) {
    out.push_back(text->get());
    return out;
  }
  std::string hint;
  if (node.is_number()) hint = " (quote numbers: TOML reads 3.10 as the number 3.1)";
  return fail(location(node),
              std::string(what) + " must be a string or a list of strings, not " + type_name(node) + hint);
}

Result<std::vector<const toml::table*>> TomlReader::tables(const toml::node& node,
                                                           std::string_view what) const {
  std::vector<const toml::table*> out;
  const auto* array = node.as_array();
  if (array == nullptr) {
    return fail(location(node), std::string(what) + " must be an array of tables (write [[" +
                                    std::string(what) + "]]), not " + type_name(node));
  }
  for (const auto& element : *array) {
    const auto* table = element.as_table();
    if (table == nullptr) {
      return fail(location(element),
                  "each entry of " + std::string(what) + " must be a table, not " + type_name(element));
    }
    out.push_back(table);
  }
  return out;
}

Result<const toml::table*> TomlReader::table(const toml::node& node, std::string_view what) const {
  if (const auto* table = node.as_table()) return table;
  return fail(location(node), std::string(what) + " must be a table, not " + type_name(node));
}

Result<std::int64_t> TomlReader::integer(const toml::node& node, std::string_view what, std::int64_t min,
                                         std::int64_t max) const {
  const auto* value = node.as_integer();
  if (value == nullptr) {
    std::string hint;
    if (node.is_string()) hint = " (write it without quotes)";
    return fail(location(node), std::string(what) + " must be an integer, not " + type_name(node) + hint);
  }
  if (value->get() < min || value->get() > max) {
    return fail(location(node), std::string(what) + " is " + std::to_string(value->get()) +
                                    "; it must be between " + std::to_string(min) + " and " +
                                    std::to_string(max));
  }
  return value->get();
}

Result<bool> TomlReader::boolean(const toml::node& node, std::string_view what) const {
  if (const auto* value = node.as_boolean()) return value->get();
  std::string hint;
  if (node.is_string()) hint = " (write true or false without quotes)";
  return fail(location(node), std::string(what) + " must be true or false, not " + type_name(node) + hint);
}

namespace {

// "'a', 'b' or 'c'".
std::string alternatives(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

}  // namespace

Result<std::size_t> TomlReader::choice(const toml::node& node, std::string_view what,
                                       const std::vector<std::string>& names) const {
  const auto* text = node.as_string();
  if (text == nullptr) {
    return fail(location(node), std::string(what) + " must be a string, one of " + alternatives(names) +
                                    ", not " + type_name(node));
  }
  const std::string lowered = core::to_lower(text->get());
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (core::to_lower(names[i]) == lowered) return i;
  }
  const auto best = core::closest_match(text->get(), names);
  return fail(location(node), std::string(what) + " '" + text->get() + "' is not one of " +
                                  alternatives(names) + (best ? "; did you mean '" + *best + "'?" : ""));
}

}  // namespace relforge::platform
