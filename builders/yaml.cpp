#include "builders/yaml.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "core/yaml_text.hpp"

namespace relforge::builders {

Yaml Yaml::str(std::string value) {
  return {Kind::string, std::move(value), {}, {}};
}
Yaml Yaml::raw(std::string value) {
  return {Kind::raw, std::move(value), {}, {}};
}
Yaml Yaml::none() {
  return {};
}
Yaml Yaml::map() {
  return {Kind::map, {}, {}, {}};
}
Yaml Yaml::seq() {
  return {Kind::seq, {}, {}, {}};
}
Yaml& Yaml::add(std::string key, Yaml value) {
  entries.push_back({std::move(key), std::move(value)});
  return *this;
}
Yaml& Yaml::add(std::string key, std::string value) {
  return add(std::move(key), str(std::move(value)));
}
Yaml& Yaml::add(std::string key, const char* value) {
  return add(std::move(key), str(value));
}
Yaml& Yaml::push(Yaml value) {
  items.push_back(std::move(value));
  return *this;
}

namespace {

bool is_control(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

// Words that YAML 1.1 or 1.2 reads as booleans or null, and text a parser would read as a number,
// a timestamp or another non-string: these are quoted.
bool reads_as_non_string(std::string_view text) {
  static const char* const k_words[] = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"};
  const std::string lower = core::to_lower(text);
  for (const char* word : k_words)
    if (lower == word) return true;
  std::size_t i = (text[0] == '+' || text[0] == '-') ? 1 : 0;
  if (i < text.size() && text[i] == '.') ++i;
  if (i < text.size() && (text[i] >= '0' && text[i] <= '9')) return true;
  return lower == ".inf" || lower == "-.inf" || lower == "+.inf" || lower == ".nan" || text == "=" ||
         text.substr(0, 2) == "<<";
}

bool plain_is_safe(std::string_view text) {
  if (text.empty() || text.front() == ' ' || text.back() == ' ' || text.back() == ':') return false;
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(text.front()) != std::string_view::npos) return false;
  for (const char c : text)
    if (is_control(static_cast<unsigned char>(c))) return false;
  if (core::has_yaml_unsafe_character(text)) return false;
  if (text.find(": ") != std::string_view::npos || text.find(" #") != std::string_view::npos) return false;
  return !reads_as_non_string(text);
}

// A multi-line string goes into a literal block (`|`) when every line reads back unchanged.
bool literal_is_safe(std::string_view text) {
  if (text.find('\n') == std::string_view::npos || text.front() == ' ' || text.front() == '\n') return false;
  for (const char c : text)
    if (c != '\n' && c != '\t' && is_control(static_cast<unsigned char>(c))) return false;
  if (core::has_yaml_unsafe_character(text)) return false;
  for (const auto line : core::split(text, '\n')) {
    if (!line.empty() && core::trim(line).empty()) return false;  // whitespace-only lines blur indentation
  }
  return true;
}

std::string key_text(const std::string& key) {
  return key == "on" ? key : yaml_scalar(key);
}

void write_map(std::string& out, const Yaml& node, std::size_t indent);
void write_seq(std::string& out, const Yaml& node, std::size_t indent);

// Writes what follows `key:` or `- `: the value on the same line, or a nested block.
void write_value(std::string& out, const Yaml& value, std::size_t indent) {
  switch (value.kind) {
    case Yaml::Kind::empty:
      out += '\n';
      return;
    case Yaml::Kind::raw:
      out += ' ' + value.text + '\n';
      return;
    case Yaml::Kind::string: {
      if (!literal_is_safe(value.text)) {
        out += ' ' + yaml_scalar(value.text) + '\n';
        return;
      }
      std::string_view body = value.text;
      std::size_t trailing = 0;
      while (trailing < body.size() && body[body.size() - 1 - trailing] == '\n') ++trailing;
      out += trailing == 0 ? " |-\n" : trailing == 1 ? " |\n" : " |+\n";
      body.remove_suffix(trailing);
      for (const auto line : core::split(body, '\n')) {
        if (!line.empty()) out.append(indent, ' ').append(line);
        out += '\n';
      }
      for (std::size_t i = 1; i < trailing; ++i) out += '\n';
      return;
    }
    case Yaml::Kind::map:
      if (value.entries.empty()) {
        out += " {}\n";
        return;
      }
      out += '\n';
      write_map(out, value, indent);
      return;
    case Yaml::Kind::seq:
      if (value.items.empty()) {
        out += " []\n";
        return;
      }
      out += '\n';
      write_seq(out, value, indent);
      return;
  }
}

void write_map(std::string& out, const Yaml& node, std::size_t indent) {
  for (const auto& [key, value] : node.entries) {
    out.append(indent, ' ').append(key_text(key)).append(":");
    write_value(out, value, indent + 2);
  }
}

void write_seq(std::string& out, const Yaml& node, std::size_t indent) {
  for (const auto& item : node.items) {
    if (item.kind == Yaml::Kind::map && !item.entries.empty()) {
      // The first key shares the line with the dash: "- name: x".
      std::string body;
      write_map(body, item, indent + 2);
      body.replace(indent, 2, "- ");
      out += body;
      continue;
    }
    out.append(indent, ' ').append("-");
    write_value(out, item, indent + 2);
  }
}

}  // namespace

bool has_control(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return is_control(static_cast<unsigned char>(c)); });
}

std::string yaml_document(const Yaml& root) {
  std::string out;
  write_map(out, root, 0);
  return out;
}

std::string yaml_scalar(std::string_view text) {
  return plain_is_safe(text) ? std::string(text) : core::yaml_double_quoted(text);
}

}  // namespace relforge::builders
