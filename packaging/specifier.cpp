#include "packaging/specifier.hpp"

#include <algorithm>
#include <array>

namespace relforge::packaging {
namespace {

constexpr std::string_view k_hint = "write it like >=2.6, ==2.6.*, !=2.6.1, ~=2.2, <3 or ===2.6.0+cu126";

enum class TrailingZeros { keep, strip };

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
}

std::strong_ordering compare_public(const Version& a, const Version& b) {
  if (a.local.empty() && b.local.empty()) return a <=> b;
  Version x = a, y = b;
  x.local.clear();
  y.local.clear();
  return x <=> y;
}

// packaging.utils.canonicalize_version for a parsed version, with or without the local label.
std::string canonical_string(const Version& version, TrailingZeros zeros, bool with_local) {
  Version copy = version;
  if (zeros == TrailingZeros::strip) {
    while (copy.release.size() > 1 && copy.release.back() == 0) copy.release.pop_back();
  }
  if (!with_local) copy.local.clear();
  return copy.to_string();
}

// canonicalize_version(text): text that is not a version comes back unchanged.
std::string canonicalize_text(std::string_view text, TrailingZeros zeros) {
  auto parsed = parse_version(text);
  if (!parsed) return std::string(text);
  return canonical_string(*parsed, zeros, true);
}

// packaging.specifiers._version_split: split on '.', then "0rc1" -> "0", "rc1".
std::vector<std::string> version_split(std::string_view text) {
  std::vector<std::string> result;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    const std::string_view item = text.substr(start, dot == std::string_view::npos ? text.npos : dot - start);
    std::size_t digits = 0;
    while (digits < item.size() && is_digit(item[digits])) ++digits;
    std::string_view rest = item.substr(digits);
    std::size_t letters = rest.starts_with("rc")                                                      ? 2
                          : (rest.starts_with("a") || rest.starts_with("b") || rest.starts_with("c")) ? 1
                                                                                                      : 0;
    if (digits > 0 && letters > 0 && all_digits(rest.substr(letters))) {
      result.emplace_back(item.substr(0, digits));
      result.emplace_back(rest);
    } else {
      result.emplace_back(item);
    }
    if (dot == std::string_view::npos) return result;
    start = dot + 1;
  }
}

bool is_not_suffix(std::string_view item) {
  for (const std::string_view prefix : {"dev", "a", "b", "rc", "post"}) {
    if (item.starts_with(prefix)) return false;
  }
  return true;
}

std::size_t leading_numeric(const std::vector<std::string>& items) {
  std::size_t n = 0;
  while (n < items.size() && all_digits(items[n])) ++n;
  return n;
}

// _compare_equal's ".*" branch: the prospective's canonical public form, split and zero-padded
// after its numeric head, must start with the prefix items.
bool prefix_matches(const Version& prospective, const std::vector<std::string>& prefix) {
  const std::vector<std::string> items =
      version_split(canonical_string(prospective, TrailingZeros::strip, false));
  const std::size_t left_numeric = leading_numeric(items);
  const std::size_t right_numeric = leading_numeric(prefix);
  const std::size_t padding = right_numeric > left_numeric ? right_numeric - left_numeric : 0;
  if (items.size() + padding < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const std::string_view item = i < left_numeric             ? std::string_view(items[i])
                                  : i < left_numeric + padding ? std::string_view("0")
                                                               : std::string_view(items[i - padding]);
    if (item != prefix[i]) return false;
  }
  return true;
}

// Python's str.lower() as far as it can make a normal-form (ASCII) version: the only non-ASCII
// character it lower-cases to ASCII is U+212A KELVIN SIGN.
std::string python_lower(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c + ('a' - 'A')));
    } else if (text.substr(i, 3) == "\xE2\x84\xAA") {
      out.push_back('k');
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

struct OperatorSpelling {
  std::string_view text;
  SpecifierOperator op;
};

// "===" first: packaging's regex falls back to it whenever "==" is followed by '='.
constexpr std::array<OperatorSpelling, 8> k_operators = {{
    {"===", SpecifierOperator::arbitrary},
    {"~=", SpecifierOperator::compatible},
    {"==", SpecifierOperator::equal},
    {"!=", SpecifierOperator::not_equal},
    {"<=", SpecifierOperator::less_equal},
    {">=", SpecifierOperator::greater_equal},
    {"<", SpecifierOperator::less},
    {">", SpecifierOperator::greater},
}};

tl::unexpected<Error> invalid(std::string_view text, std::string_view what) {
  return fail(ErrorCategory::invalid_input, "invalid specifier '" + std::string(text) +
                                                "': " + std::string(what) + "; " + std::string(k_hint));
}

}  // namespace

std::string_view operator_text(SpecifierOperator op) {
  for (const auto& spelling : k_operators) {
    if (spelling.op == op) return spelling.text;
  }
  return "?";
}

std::string Specifier::to_string() const {
  return std::string(operator_text(m_op)) + m_text;
}

bool Specifier::matches(const Version& v) const {
  if (m_op == SpecifierOperator::arbitrary) return v.to_string() == m_arbitrary_lower;
  const Version& spec = *m_version;
  switch (m_op) {
    case SpecifierOperator::compatible:
      return compare_public(v, spec) >= 0 && prefix_matches(v, m_prefix_items);
    case SpecifierOperator::equal:
    case SpecifierOperator::not_equal: {
      bool equal = false;
      if (m_wildcard)
        equal = prefix_matches(v, m_prefix_items);
      else if (spec.has_local())
        equal = v == spec;
      else
        equal = compare_public(v, spec) == 0;
      return equal == (m_op == SpecifierOperator::equal);
    }
    case SpecifierOperator::less_equal:
      return compare_public(v, spec) <= 0;
    case SpecifierOperator::greater_equal:
      return compare_public(v, spec) >= 0;
    case SpecifierOperator::less:
      // "<2.6" must not admit 2.6.0rc1: a pre-release of the very version named is not "less".
      if (!(v < spec)) return false;
      return !(!spec.is_prerelease() && v.is_prerelease() && same_base(v, spec));
    case SpecifierOperator::greater:
      if (!(v > spec)) return false;
      if (!spec.is_postrelease() && v.is_postrelease() && same_base(v, spec)) return false;
      return !(v.has_local() && same_base(v, spec));
    case SpecifierOperator::arbitrary:
      break;
  }
  return false;
}

bool Specifier::contains(const Version& version, PreReleases prereleases) const {
  const bool allow = prereleases == PreReleases::allow || m_mentions_prerelease;
  if (version.is_prerelease() && !allow) return false;
  return matches(version);
}

Result<Specifier> parse_specifier(std::string_view text) {
  const std::string_view s = strip_python_space(text);
  if (s.empty()) return invalid(text, "the specifier is empty");
  Specifier spec;
  std::size_t op_length = 0;
  for (const auto& spelling : k_operators) {
    if (s.starts_with(spelling.text)) {
      spec.m_op = spelling.op;
      op_length = spelling.text.size();
      break;
    }
  }
  if (op_length == 0)
    return invalid(text, "it does not start with a comparison operator (~= == != <= >= < > ===)");
  const std::string_view value = strip_python_space(s.substr(op_length));
  spec.m_text = std::string(value);

  if (spec.m_op == SpecifierOperator::arbitrary) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (value[i] == ';' || value[i] == ')' || python_space_length(value, i) != 0) {
        return invalid(text, "the value after === must not contain whitespace, ';' or ')'");
      }
    }
    if (auto parsed = parse_version(value)) {
      spec.m_mentions_prerelease = parsed->is_prerelease();
      spec.m_version = std::move(*parsed);
    }
    spec.m_arbitrary_lower = python_lower(value);
    spec.m_canonical = canonicalize_text(value, TrailingZeros::strip);
    return spec;
  }

  const bool equality = spec.m_op == SpecifierOperator::equal || spec.m_op == SpecifierOperator::not_equal;
  if (value.ends_with(".*")) {
    if (!equality) return invalid(text, "a '.*' wildcard is only allowed with == and !=");
    const std::string_view prefix = value.substr(0, value.size() - 2);
    auto parsed = parse_version(prefix);
    if (!parsed || !is_digit(prefix.empty() ? '\0' : prefix.back()) || parsed->pre || parsed->post ||
        parsed->dev || parsed->has_local()) {
      return invalid(text, "'.*' must directly follow the release numbers, as in ==2.6.*");
    }
    spec.m_wildcard = true;
    spec.m_version = std::move(*parsed);
    spec.m_prefix_items = version_split(canonicalize_text(prefix, TrailingZeros::keep));
    spec.m_canonical = std::string(value);  // canonicalize_version() leaves non-versions alone
    return spec;
  }

  auto parsed = parse_version(value);
  if (!parsed) {
    return fail(ErrorCategory::invalid_input,
                "invalid specifier '" + std::string(text) + "': " + parsed.error().message());
  }
  if (parsed->has_local() && !equality) {
    return invalid(text, "a local label (+...) is only allowed with == and !=");
  }
  if (spec.m_op == SpecifierOperator::compatible && parsed->release.size() < 2) {
    return invalid(text, "~= needs at least two release numbers (~=2.2, not ~=2)");
  }
  const SpecifierOperator op = spec.m_op;
  spec.m_mentions_prerelease = parsed->is_prerelease() && op != SpecifierOperator::not_equal &&
                               op != SpecifierOperator::less && op != SpecifierOperator::greater;
  spec.m_canonical = canonical_string(
      *parsed, op == SpecifierOperator::compatible ? TrailingZeros::keep : TrailingZeros::strip, true);
  if (op == SpecifierOperator::compatible) {
    // The prefix comes from the spec *as written* (packaging splits the raw string), so
    // "~=2.2.RC1" and "~=2.2rc1" really do differ.
    std::vector<std::string> items = version_split(value);
    std::size_t keep = 0;
    while (keep < items.size() && is_not_suffix(items[keep])) ++keep;
    std::string prefix;
    for (std::size_t i = 0; i + 1 < keep; ++i) {
      if (i != 0) prefix.push_back('.');
      prefix += items[i];
    }
    spec.m_prefix_items = version_split(canonicalize_text(prefix, TrailingZeros::keep));
  }
  spec.m_version = std::move(*parsed);
  return spec;
}

bool SpecifierSet::mentions_prerelease() const {
  return std::any_of(m_specifiers.begin(), m_specifiers.end(),
                     [](const Specifier& s) { return s.mentions_prerelease(); });
}

std::string SpecifierSet::to_string() const {
  std::vector<std::string> parts;
  parts.reserve(m_specifiers.size());
  for (const auto& s : m_specifiers) parts.push_back(s.to_string());
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i != 0) out.push_back(',');
    out += parts[i];
  }
  return out;
}

bool SpecifierSet::contains(const Version& version, PreReleases prereleases) const {
  const bool allow = prereleases == PreReleases::allow || mentions_prerelease();
  if (version.is_prerelease() && !allow) return false;
  return std::all_of(m_specifiers.begin(), m_specifiers.end(),
                     [&](const Specifier& s) { return s.matches(version); });
}

std::vector<std::size_t> SpecifierSet::filter(std::span<const Version> versions,
                                              PreReleases prereleases) const {
  std::vector<std::size_t> kept;
  if (!m_specifiers.empty() || prereleases == PreReleases::allow) {
    for (std::size_t i = 0; i < versions.size(); ++i) {
      if (contains(versions[i], prereleases)) kept.push_back(i);
    }
    return kept;
  }
  for (std::size_t i = 0; i < versions.size(); ++i) {
    if (!versions[i].is_prerelease()) kept.push_back(i);
  }
  if (kept.empty()) {
    for (std::size_t i = 0; i < versions.size(); ++i) kept.push_back(i);
  }
  return kept;
}

Result<SpecifierSet> parse_specifier_set(std::string_view text) {
  SpecifierSet set;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = strip_python_space(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    auto spec = parse_specifier(item);
    if (!spec) {
      Error error = spec.error();
      if (item != strip_python_space(text)) error.with_context("specifier set '" + std::string(text) + "'");
      return tl::unexpected(std::move(error));
    }
    const bool seen = std::any_of(set.m_specifiers.begin(), set.m_specifiers.end(), [&](const Specifier& s) {
      return s.op() == spec->op() && s.canonical_key() == spec->canonical_key();
    });
    if (!seen) set.m_specifiers.push_back(std::move(*spec));
  }
  return set;
}

}  // namespace relforge::packaging
