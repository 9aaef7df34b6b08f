#include "matrix/matcher.hpp"

#include <array>

#include "packaging/specifier.hpp"

namespace relforge::matrix {

bool is_specifier_text(std::string_view text) {
  static constexpr std::array<std::string_view, 6> k_operators = {"==", "!=", "<", ">", "~=", "==="};
  for (const auto op : k_operators) {
    if (text.substr(0, op.size()) == op) return true;
  }
  return false;
}

std::optional<packaging::Version> version_of(std::string_view text, Leading leading) {
  if (text.empty()) return std::nullopt;
  // Cheap pre-check: every PEP 440 version starts with a digit, 'v', or an epoch digit.
  const char first = text.front();
  if (!(first >= '0' && first <= '9') && first != 'v' && first != 'V') return std::nullopt;
  if (auto whole = packaging::parse_version(text)) return std::move(*whole);
  if (leading == Leading::not_allowed) return std::nullopt;
  for (std::size_t size = text.size() - 1; size > 0; --size) {
    if (auto part = packaging::parse_version(text.substr(0, size))) return std::move(*part);
  }
  return std::nullopt;
}

Result<Matcher> Matcher::parse(const std::vector<std::string>& alternatives, const ValueTypes& types) {
  Matcher matcher;
  matcher.m_texts = alternatives;
  matcher.m_types = types.empty() ? ValueTypes(alternatives.size(), ValueType::string) : types;
  for (std::size_t i = 0; i < alternatives.size(); ++i) {
    const auto& text = alternatives[i];
    Alternative alternative;
    alternative.type = matcher.m_types[i];
    if (alternative.type != ValueType::string) {
      // compared as typed text in matches()
    } else if (is_specifier_text(text)) {
      auto specifier = packaging::parse_specifier_set(text);
      if (!specifier) {
        return fail(ErrorCategory::invalid_input,
                    "bad specifier '" + text + "': " + specifier.error().message());
      }
      alternative.specifier = std::make_shared<const packaging::SpecifierSet>(std::move(*specifier));
    } else {
      auto glob = Glob::compile(text);
      if (!glob) return tl::unexpected(glob.error());
      alternative.glob.emplace(std::move(*glob));
    }
    matcher.m_alternatives.push_back(std::move(alternative));
  }
  return matcher;
}

std::size_t Matcher::patterns() const {
  std::size_t count = 0;
  for (const auto& alternative : m_alternatives) count += alternative.glob ? alternative.glob->patterns() : 1;
  return count;
}

bool Matcher::matches(std::string_view text, const packaging::Version* version, ValueType type) const {
  for (std::size_t i = 0; i < m_alternatives.size(); ++i) {
    const auto& alternative = m_alternatives[i];
    if (alternative.type != ValueType::string) {
      if (alternative.type == type && m_texts[i] == text) return true;
    } else if (alternative.glob) {
      if (alternative.glob->matches(text)) return true;
    } else if (version != nullptr &&
               alternative.specifier->contains(*version, packaging::PreReleases::allow)) {
      return true;
    }
  }
  return false;
}

bool Matcher::matches_text(std::string_view text, ValueType type) const {
  if (!has_specifier()) return matches(text, nullptr, type);
  const auto version = version_of(text, Leading::not_allowed);
  return matches(text, version ? &*version : nullptr, type);
}

bool Matcher::has_specifier() const {
  for (const auto& alternative : m_alternatives) {
    if (alternative.specifier) return true;
  }
  return false;
}

const std::string* Matcher::literal() const {
  if (m_texts.size() == 1 && m_types.front() != ValueType::string) return &m_texts[0];
  if (m_texts.size() != 1 || is_specifier_text(m_texts[0]) || !is_literal_pattern(m_texts[0])) {
    return nullptr;
  }
  return &m_texts[0];
}

std::string Matcher::describe() const {
  const auto shown = [&](std::size_t i) {
    return m_types[i] == ValueType::string ? "'" + m_texts[i] + "'" : m_texts[i];
  };
  if (m_texts.size() == 1) return shown(0);
  std::string out = "[";
  for (std::size_t i = 0; i < m_texts.size(); ++i) {
    if (i > 0) out += ", ";
    out += shown(i);
  }
  return out + "]";
}

}  // namespace relforge::matrix
