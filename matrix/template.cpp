#include "matrix/template.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "matrix/diagnostics.hpp"

namespace relforge::matrix {
namespace {

char apply(Filter filter, char c, bool& drop) {
  switch (filter) {
    case Filter::underscore:
      return c == '.' ? '_' : c;
    case Filter::nodot:
      if (c == '.') drop = true;
      return c;
    case Filter::lower:
      return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    case Filter::upper:
      return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    case Filter::dash:
      return (c == '.' || c == '_') ? '-' : c;
  }
  return c;
}

Result<Filter> parse_filter(std::string_view name, std::string_view text) {
  const auto& names = filter_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<Filter>(i);
  }
  return fail(ErrorCategory::invalid_input, "unknown filter '" + std::string(name) + "' in template '" +
                                                std::string(text) + "'" + suggestion(name, names));
}

}  // namespace

const std::vector<std::string>& filter_names() {
  static const std::vector<std::string> k_names = {"underscore", "nodot", "lower", "upper", "dash"};
  return k_names;
}

void append_filtered(std::string& out, std::string_view value, const std::vector<Filter>& filters) {
  if (filters.empty()) {
    out.append(value);
    return;
  }
  // Every filter maps one character to at most one, so they compose per character.
  for (char c : value) {
    bool drop = false;
    for (const Filter filter : filters) {
      c = apply(filter, c, drop);
      if (drop) break;
    }
    if (!drop) out.push_back(c);
  }
}

Result<Template> Template::compile(std::string_view text, const NameResolver& resolve) {
  Template compiled;
  compiled.m_text = std::string(text);
  std::string literal;
  const auto flush_literal = [&] {
    if (literal.empty()) return;
    compiled.m_literal_size += literal.size();
    compiled.m_segments.push_back(Segment{std::move(literal), NameBinding::k_constant, {}});
    literal.clear();
  };
  const auto bad = [&](const std::string& why) {
    return fail(ErrorCategory::invalid_input, "template '" + std::string(text) + "': " + why);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '}') {
      if (i + 1 < text.size() && text[i + 1] == '}') {
        literal += '}';
        ++i;
        continue;
      }
      return bad("unmatched '}' at offset " + std::to_string(i) + " (write '}}' for a literal brace)");
    }
    if (c != '{') {
      literal += c;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {
      literal += '{';
      ++i;
      continue;
    }
    const std::size_t close = text.find('}', i + 1);
    if (close == std::string_view::npos) {
      return bad("'{' at offset " + std::to_string(i) + " is never closed (write '{{' for a literal brace)");
    }
    const auto parts = core::split(text.substr(i + 1, close - i - 1), '|');
    const std::string_view name = core::trim(parts[0]);
    if (name.empty()) return bad("empty name in '{}'");
    auto binding = resolve(name);
    if (!binding) {
      return bad(binding.error().message());
    }
    std::vector<Filter> filters;
    for (std::size_t p = 1; p < parts.size(); ++p) {
      auto filter = parse_filter(core::trim(parts[p]), text);
      if (!filter) return tl::unexpected(filter.error());
      filters.push_back(*filter);
    }
    if (binding->slot == NameBinding::k_constant) {
      append_filtered(literal, binding->constant, filters);
    } else {
      flush_literal();
      compiled.m_segments.push_back(Segment{{}, binding->slot, std::move(filters)});
    }
    i = close;
  }
  flush_literal();
  return compiled;
}

void Template::render_to(std::string& out, const std::vector<std::string>& values,
                         std::string_view id) const {
  for (const auto& segment : m_segments) {
    if (segment.slot == NameBinding::k_constant) {
      out.append(segment.literal);
    } else if (segment.slot == NameBinding::k_id) {
      append_filtered(out, id, segment.filters);
    } else {
      append_filtered(out, values[segment.slot], segment.filters);
    }
  }
}

std::size_t Template::size_bound(const std::vector<std::string>& values, std::string_view id) const {
  std::size_t size = 0;
  for (const auto& segment : m_segments) {
    if (segment.slot == NameBinding::k_constant)
      size += segment.literal.size();
    else if (segment.slot == NameBinding::k_id)
      size += id.size();
    else
      size += values[segment.slot].size();
  }
  return size;
}

std::uint64_t Template::size_bound(const std::vector<std::uint64_t>& sizes, std::uint64_t id_size) const {
  constexpr std::uint64_t k_ceiling = std::uint64_t{1} << 62;
  std::uint64_t size = 0;
  for (const auto& segment : m_segments) {
    const std::uint64_t part = segment.slot == NameBinding::k_constant ? segment.literal.size()
                               : segment.slot == NameBinding::k_id     ? id_size
                                                                       : sizes[segment.slot];
    size = std::min(k_ceiling, size + std::min(k_ceiling, part));
  }
  return size;
}

std::string Template::render(const std::vector<std::string>& values, std::string_view id) const {
  std::string out;
  out.reserve(m_literal_size + 16 * m_segments.size());
  render_to(out, values, id);
  return out;
}

std::vector<std::uint32_t> Template::slots() const {
  std::vector<std::uint32_t> out;
  for (const auto& segment : m_segments) {
    if (segment.slot != NameBinding::k_constant) out.push_back(segment.slot);
  }
  return out;
}

}  // namespace relforge::matrix
