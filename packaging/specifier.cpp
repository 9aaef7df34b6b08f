#include "packaging/specifier.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

#include "packaging/ascii.hpp"
#include "packaging/names.hpp"

namespace relforge::packaging {
namespace {

constexpr std::string_view k_hint = "write it like >=2.6, ==2.6.*, !=2.6.1, ~=2.2, <3 or ===2.6.0+cu126";

enum class TrailingZeros { keep, strip };

using ascii::is_digit;

std::strong_ordering compare_public(const Version& a, const Version& b) {
  if (a.local.empty() && b.local.empty()) return a <=> b;
  Version x = a, y = b;
  x.local.clear();
  y.local.clear();
  return x <=> y;
}

// packaging.utils.canonicalize_version for a parsed version (26.3: local label kept).
std::string canonical_string(const Version& version, TrailingZeros zeros) {
  if (zeros == TrailingZeros::keep) return version.to_string();
  Version copy = version;
  while (copy.release.size() > 1 && copy.release.back() == 0) copy.release.pop_back();
  return copy.to_string();
}

// The smallest version of the next release prefix: 1.2 -> 1.3.dev0 (packaging's _next_prefix_dev0).
Version next_prefix_dev0(const Version& version, std::size_t length) {
  Version next;
  next.epoch = version.epoch;
  next.release.assign(version.release.begin(), version.release.begin() + static_cast<std::ptrdiff_t>(length));
  next.release.back() = next.release.back().plus_one();
  next.dev = VersionNumber();
  return next;
}

// Same epoch, same release (trailing zeros ignored) and same pre-release: the versions that
// AFTER_POSTS(V), the lower bound of >V, sits above.
bool same_release_and_pre(const Version& a, const Version& b) {
  return same_base(a, b) && a.pre == b.pre;
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
  if (m_op == SpecifierOperator::arbitrary) return python_lower(v.to_string()) == m_arbitrary_lower;
  const Version& spec = *m_version;
  switch (m_op) {
    case SpecifierOperator::compatible:
      return v >= spec && v < *m_high;
    case SpecifierOperator::equal:
    case SpecifierOperator::not_equal: {
      bool equal = false;
      if (m_wildcard)
        equal = v >= *m_low && v < *m_high;
      else if (m_has_local)
        equal = v == spec;
      else
        equal = compare_public(v, spec) == 0;
      return equal == (m_op == SpecifierOperator::equal);
    }
    case SpecifierOperator::less_equal:
      return compare_public(v, spec) <= 0;
    case SpecifierOperator::greater_equal:
      return v >= spec;
    case SpecifierOperator::less:
      // <V stops below V.dev0 when V is final: its own pre-releases are not "less".
      return m_low && v < *m_low;
    case SpecifierOperator::greater:
      // >V.devN and >V.postN start at the next real version; >V skips V, V+local and V.postN.
      if (m_low) return v >= *m_low;
      return v > spec && !same_release_and_pre(v, spec);
    case SpecifierOperator::arbitrary:
      break;
  }
  return false;
}

bool Specifier::matches_text(std::string_view text) const {
  if (m_op == SpecifierOperator::arbitrary) return python_lower(text) == m_arbitrary_lower;
  const auto parsed = parse_version(text);
  return parsed && matches(*parsed);
}

bool Specifier::contains(const Version& version, PreReleases prereleases) const {
  if (prereleases == PreReleases::exclude && version.is_prerelease()) return false;
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
    spec.m_canonical = std::string(value);  // 26.3 keeps === as written
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
    // ==V.* is the range [V.dev0, next.dev0), epoch included: ==1.2.* is [1.2.dev0, 1.3.dev0).
    Version low;
    low.epoch = parsed->epoch;
    low.release = parsed->release;
    low.dev = VersionNumber();
    spec.m_low = std::move(low);
    spec.m_high = next_prefix_dev0(*parsed, parsed->release.size());
    spec.m_version = std::move(*parsed);
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
  spec.m_mentions_prerelease = parsed->is_prerelease() && op != SpecifierOperator::not_equal;
  spec.m_has_local = value.find('+') != std::string_view::npos;
  spec.m_canonical = canonical_string(
      *parsed, op == SpecifierOperator::compatible ? TrailingZeros::keep : TrailingZeros::strip);
  const Version& v = *parsed;
  if (op == SpecifierOperator::compatible) {
    spec.m_high = next_prefix_dev0(v, v.release.size() - 1);
  } else if (op == SpecifierOperator::greater && (v.dev || v.post)) {
    Version low = v;
    low.local.clear();
    if (v.dev) {
      low.dev = v.dev->plus_one();
    } else {
      low.post = v.post->plus_one();
      low.dev = VersionNumber();
    }
    spec.m_low = std::move(low);
  } else if (op == SpecifierOperator::less) {
    Version bound = v;
    if (!v.is_prerelease()) {
      bound.dev = VersionNumber();
      bound.local.clear();
    }
    // Nothing sorts below 0.dev0, so <0 (bound 0.dev0) matches no version at all.
    Version floor;
    floor.release = {VersionNumber()};
    floor.dev = VersionNumber();
    if (bound > floor) spec.m_low = std::move(bound);
  }
  spec.m_version = std::move(*parsed);
  return spec;
}

bool SpecifierSet::mentions_prerelease() const {
  return std::any_of(m_specifiers.begin(), m_specifiers.end(),
                     [](const Specifier& s) { return s.mentions_prerelease(); });
}

bool SpecifierSet::has_arbitrary() const {
  return std::any_of(m_specifiers.begin(), m_specifiers.end(),
                     [](const Specifier& s) { return s.op() == SpecifierOperator::arbitrary; });
}

std::string SpecifierSet::to_string() const {
  std::vector<const Specifier*> sorted;
  sorted.reserve(m_specifiers.size());
  for (const auto& s : m_specifiers) sorted.push_back(&s);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Specifier* a, const Specifier* b) { return a->to_string() < b->to_string(); });
  std::string out;
  std::vector<const Specifier*> kept;
  for (const Specifier* s : sorted) {
    const bool seen = std::any_of(kept.begin(), kept.end(), [&](const Specifier* k) {
      return k->op() == s->op() && k->canonical_key() == s->canonical_key();
    });
    if (seen) continue;
    kept.push_back(s);
    if (!out.empty()) out.push_back(',');
    out += s->to_string();
  }
  return out;
}

namespace {

// The PEP 440 default of filter(): the finals that matched, or when none did, everything that
// matched. `is_final` says, per matched index, whether it counts as a final release.
std::vector<std::size_t> pep440_default(const std::vector<std::size_t>& matched,
                                        const std::vector<bool>& is_final, const std::vector<bool>& is_pre) {
  const bool any_final =
      std::any_of(matched.begin(), matched.end(), [&](std::size_t i) { return is_final[i]; });
  if (!any_final) return matched;
  std::vector<std::size_t> kept;
  for (const std::size_t i : matched) {
    if (!is_pre[i]) kept.push_back(i);
  }
  return kept;
}

}  // namespace

bool SpecifierSet::contains(const Version& version, PreReleases prereleases) const {
  if (prereleases == PreReleases::exclude && version.is_prerelease()) return false;
  return std::all_of(m_specifiers.begin(), m_specifiers.end(),
                     [&](const Specifier& s) { return s.matches(version); });
}

bool SpecifierSet::contains_text(std::string_view text, PreReleases prereleases) const {
  const auto parsed = parse_version(text);
  if (parsed && prereleases == PreReleases::exclude && parsed->is_prerelease()) return false;
  if (!parsed && !m_specifiers.empty() && !has_arbitrary()) return false;
  if (parsed && !has_arbitrary()) return contains(*parsed, prereleases);
  return std::all_of(m_specifiers.begin(), m_specifiers.end(),
                     [&](const Specifier& s) { return s.matches_text(text); });
}

std::vector<std::size_t> SpecifierSet::filter(std::span<const Version> versions,
                                              PreReleases prereleases) const {
  if (prereleases == PreReleases::by_specifier && mentions_prerelease()) prereleases = PreReleases::allow;
  std::vector<std::size_t> matched;
  std::vector<bool> is_final(versions.size()), is_pre(versions.size());
  for (std::size_t i = 0; i < versions.size(); ++i) {
    is_pre[i] = versions[i].is_prerelease();
    is_final[i] = !is_pre[i];
    if (prereleases == PreReleases::exclude && is_pre[i]) continue;
    if (contains(versions[i], PreReleases::allow)) matched.push_back(i);
  }
  if (prereleases != PreReleases::by_specifier) return matched;
  return pep440_default(matched, is_final, is_pre);
}

std::vector<std::size_t> SpecifierSet::filter_text(std::span<const std::string> texts,
                                                   PreReleases prereleases) const {
  if (prereleases == PreReleases::by_specifier && mentions_prerelease()) prereleases = PreReleases::allow;
  // Text that is not a version survives only the === path and the empty set, where packaging
  // cannot tell whether it is a pre-release and keeps it.
  const bool keeps_text = m_specifiers.empty() || has_arbitrary();
  std::vector<std::size_t> matched;
  std::vector<bool> is_final(texts.size()), is_pre(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto parsed = parse_version(texts[i]);
    is_pre[i] = parsed && parsed->is_prerelease();
    is_final[i] = parsed && !is_pre[i];
    if (!parsed && !keeps_text) continue;
    if (prereleases == PreReleases::exclude && is_pre[i]) continue;
    if (contains_text(texts[i], PreReleases::allow)) matched.push_back(i);
  }
  if (prereleases != PreReleases::by_specifier) return matched;
  return pep440_default(matched, is_final, is_pre);
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
    set.m_specifiers.push_back(std::move(*spec));
  }
  return set;
}

}  // namespace relforge::packaging
