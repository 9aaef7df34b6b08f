#include "packaging/version.hpp"

#include "packaging/ascii.hpp"
#include "packaging/version_key.hpp"

#include <algorithm>
#include <charconv>
#include <mutex>
#include <unordered_set>

namespace relforge::packaging {
namespace {

// A hand-written single pass over packaging 26.3's VERSION_PATTERN (re.VERBOSE | re.IGNORECASE,
// the letters ASCII-only):
//   v? (N!)? N(.N)* ([-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?N?)?
//   (-N | [-_.]?(post|rev|r)[-_.]?N?)? ([-_.]?dev[-_.]?N?)? (+L([-_.]L)*)?
// Each optional part is taken greedily; the regex's backtracking can never do better here,
// because every later part starts with an optional separator of its own.

enum class FailureKind { empty, expected_number, number_too_large, expected_local, unexpected };

// CPython refuses int() on longer digit strings (sys.int_info.default_max_str_digits).
constexpr std::size_t k_max_digits = 4300;

struct Failure {
  FailureKind kind = FailureKind::unexpected;
  std::size_t offset = 0;
};

using ascii::is_digit;
using ascii::is_separator;
using ascii::lower;
constexpr bool is_alnum(char c) {
  return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'z');
}

class Parser {
public:
  explicit Parser(std::string_view text) : m_text(text) {}

  bool parse(Version& out, Failure& failure) {
    m_failure = &failure;
    skip_space();
    if (m_pos == m_text.size()) return fail(FailureKind::empty);
    if (peek() == 'v' || peek() == 'V') ++m_pos;
    VersionNumber number;
    if (!number_required(number)) return false;
    if (peek() == '!') {
      ++m_pos;
      out.epoch = number;
      if (!number_required(number)) return false;
    }
    out.release.reserve(4);
    out.release.push_back(number);
    while (peek() == '.' && is_digit(peek(1))) {
      ++m_pos;
      if (!number_required(number)) return false;
      out.release.push_back(number);
    }
    if (!parse_pre(out) || !parse_post(out) || !parse_dev(out) || !parse_local(out)) return false;
    skip_space();
    if (m_pos != m_text.size()) return fail(FailureKind::unexpected);
    return true;
  }

private:
  char peek(std::size_t ahead = 0) const {
    return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0';
  }

  bool fail(FailureKind kind) {
    m_failure->kind = kind;
    m_failure->offset = m_pos;
    return false;
  }

  void skip_space() {
    while (const std::size_t length = python_space_length(m_text, m_pos)) m_pos += length;
  }

  // Matches `word` (lower case) case-insensitively at `at`.
  bool word_at(std::size_t at, std::string_view word) const {
    if (at + word.size() > m_text.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i) {
      if (lower(m_text[at + i]) != word[i]) return false;
    }
    return true;
  }

  bool number_required(VersionNumber& value) {
    if (!is_digit(peek())) return fail(FailureKind::expected_number);
    return read_number(value);
  }

  bool read_number(VersionNumber& value) {
    const std::size_t start = m_pos;
    std::uint64_t small = 0;
    bool overflow = false;
    while (is_digit(peek())) {
      const auto digit = static_cast<std::uint64_t>(peek() - '0');
      if (small > (UINT64_MAX - digit) / 10) overflow = true;
      small = small * 10 + digit;
      ++m_pos;
    }
    if (!overflow) {
      value = VersionNumber(small);
      return true;
    }
    if (m_pos - start > k_max_digits) {
      m_pos = start;
      return fail(FailureKind::number_too_large);
    }
    value = VersionNumber::from_digits(m_text.substr(start, m_pos - start));
    return true;
  }

  // `[-_.]?N?` after a pre/post/dev keyword; a missing number means 0.
  bool read_letter_number(VersionNumber& value) {
    if (is_separator(peek())) ++m_pos;
    value = VersionNumber();
    return !is_digit(peek()) || read_number(value);
  }

  bool parse_pre(Version& out) {
    std::size_t at = m_pos;
    if (is_separator(peek())) ++at;
    PreReleaseKind kind{};
    std::size_t length = 0;
    if (word_at(at, "alpha"))
      kind = PreReleaseKind::a, length = 5;
    else if (word_at(at, "a"))
      kind = PreReleaseKind::a, length = 1;
    else if (word_at(at, "beta"))
      kind = PreReleaseKind::b, length = 4;
    else if (word_at(at, "b"))
      kind = PreReleaseKind::b, length = 1;
    else if (word_at(at, "c"))
      kind = PreReleaseKind::rc, length = 1;
    else if (word_at(at, "rc"))
      kind = PreReleaseKind::rc, length = 2;
    else if (word_at(at, "preview"))
      kind = PreReleaseKind::rc, length = 7;
    else if (word_at(at, "pre"))
      kind = PreReleaseKind::rc, length = 3;
    else
      return true;
    m_pos = at + length;
    VersionNumber number;
    if (!read_letter_number(number)) return false;
    out.pre = PreRelease{kind, std::move(number)};
    return true;
  }

  bool parse_post(Version& out) {
    VersionNumber number;
    if (peek() == '-' && is_digit(peek(1))) {  // the implicit form, "1.0-1"
      ++m_pos;
      if (!read_number(number)) return false;
      out.post = number;
      return true;
    }
    std::size_t at = m_pos;
    if (is_separator(peek())) ++at;
    std::size_t length = 0;
    if (word_at(at, "post"))
      length = 4;
    else if (word_at(at, "rev"))
      length = 3;
    else if (word_at(at, "r"))
      length = 1;
    else
      return true;
    m_pos = at + length;
    if (!read_letter_number(number)) return false;
    out.post = number;
    return true;
  }

  bool parse_dev(Version& out) {
    std::size_t at = m_pos;
    if (is_separator(peek())) ++at;
    if (!word_at(at, "dev")) return true;
    m_pos = at + 3;
    VersionNumber number;
    if (!read_letter_number(number)) return false;
    out.dev = number;
    return true;
  }

  bool parse_local(Version& out) {
    if (peek() != '+') return true;
    ++m_pos;
    if (!is_alnum(peek())) return fail(FailureKind::expected_local);
    while (true) {
      const std::size_t start = m_pos;
      bool numeric = true;
      while (is_alnum(peek())) {
        numeric = numeric && is_digit(peek());
        ++m_pos;
      }
      LocalSegment segment;
      if (numeric) {
        VersionNumber value;
        m_pos = start;
        if (!read_number(value)) return false;
        segment.number = value;
      } else {
        segment.word.reserve(m_pos - start);
        for (std::size_t i = start; i < m_pos; ++i) segment.word.push_back(lower(m_text[i]));
      }
      out.local.push_back(std::move(segment));
      if (!(is_separator(peek()) && is_alnum(peek(1)))) return true;
      ++m_pos;
    }
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  Failure* m_failure = nullptr;
};

std::string describe_failure(std::string_view text, const Failure& failure) {
  const std::string column = std::to_string(failure.offset + 1);
  std::string found;
  if (failure.offset >= text.size()) {
    found = "the end of the text";
  } else {
    const auto byte = static_cast<unsigned char>(text[failure.offset]);
    if (byte >= 0x20 && byte < 0x7f) {
      found = std::string("'") + text[failure.offset] + "'";
    } else {
      static constexpr char k_hex[] = "0123456789abcdef";
      found = std::string("byte 0x") + k_hex[byte >> 4] + k_hex[byte & 15];
    }
  }
  std::string what;
  switch (failure.kind) {
    case FailureKind::empty:
      what = "the version is empty";
      break;
    case FailureKind::expected_number:
      what = "expected a release number at column " + column + ", found " + found;
      break;
    case FailureKind::number_too_large:
      what = "the number at column " + column + " has more than " + std::to_string(k_max_digits) +
             " digits (Python's int() limit)";
      break;
    case FailureKind::expected_local:
      what = "expected a local label (letters and digits) after '+' at column " + column + ", found " + found;
      break;
    case FailureKind::unexpected:
      what = "unexpected " + found + " at column " + column;
      break;
  }
  return "invalid version '" + std::string(text) + "': " + what +
         "; a PEP 440 version looks like 1.0, 2.6.0rc1, 1!2.0.post1.dev3 or 2.6.0+cu126";
}

void append_number(std::string& out, const VersionNumber& value) {
  value.append_to(out);
}

void append_base(std::string& out, const Version& v) {
  if (v.epoch != 0) {
    append_number(out, v.epoch);
    out.push_back('!');
  }
  for (std::size_t i = 0; i < v.release.size(); ++i) {
    if (i != 0) out.push_back('.');
    append_number(out, v.release[i]);
  }
}

void append_public(std::string& out, const Version& v) {
  append_base(out, v);
  if (v.pre) {
    out += v.pre->kind == PreReleaseKind::a ? "a" : v.pre->kind == PreReleaseKind::b ? "b" : "rc";
    append_number(out, v.pre->number);
  }
  if (v.post) {
    out += ".post";
    append_number(out, *v.post);
  }
  if (v.dev) {
    out += ".dev";
    append_number(out, *v.dev);
  }
}

// Release segments compare as if zero-padded to the same length (packaging strips trailing zeros).
std::strong_ordering compare_release(const std::vector<VersionNumber>& a,
                                     const std::vector<VersionNumber>& b) {
  const std::size_t common = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (const auto c = a[i] <=> b[i]; c != 0) return c;
  }
  // The longer one is greater exactly when its extra components are not all zero.
  const auto& longer = a.size() > b.size() ? a : b;
  for (std::size_t i = common; i < longer.size(); ++i) {
    if (!longer[i].is_small() || longer[i].small_value() != 0) {
      return &longer == &a ? std::strong_ordering::greater : std::strong_ordering::less;
    }
  }
  return std::strong_ordering::equal;
}

// packaging's _cmpkey pre slot: dev-only releases sort below every pre-release (-Infinity),
// final releases above them (+Infinity). Encoded as (rank, kind, number).
// 0 = -Infinity (a dev release without pre or post), 1 = a real pre-release, 2 = +Infinity.
int pre_rank(const Version& v) {
  if (v.pre) return 1;
  return (!v.post && v.dev) ? 0 : 2;
}

std::strong_ordering compare_pre(const Version& a, const Version& b) {
  const int x = pre_rank(a), y = pre_rank(b);
  if (x != y) return x <=> y;
  if (x != 1) return std::strong_ordering::equal;
  if (a.pre->kind != b.pre->kind) return static_cast<int>(a.pre->kind) <=> static_cast<int>(b.pre->kind);
  return a.pre->number <=> b.pre->number;
}

std::strong_ordering compare_local(const std::vector<LocalSegment>& a, const std::vector<LocalSegment>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const LocalSegment& x = a[i];
    const LocalSegment& y = b[i];
    if (x.number && y.number) {
      if (const auto c = *x.number <=> *y.number; c != 0) return c;
    } else if (x.number) {
      return std::strong_ordering::greater;  // numeric above alphanumeric
    } else if (y.number) {
      return std::strong_ordering::less;
    } else if (const int c = x.word.compare(y.word); c != 0) {
      return c <=> 0;
    }
  }
  return a.size() <=> b.size();
}

}  // namespace

VersionNumber VersionNumber::from_digits(std::string_view digits) {
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  VersionNumber n;
  std::uint64_t small = 0;
  for (const char c : digits) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (small > (UINT64_MAX - digit) / 10) {
      static std::mutex mutex;
      static std::unordered_set<std::string> pool;  // node-based: element addresses are stable
      const std::lock_guard lock(mutex);
      n.m_big = &*pool.emplace(digits).first;
      return n;
    }
    small = small * 10 + digit;
  }
  n.m_small = small;
  return n;
}

void VersionNumber::append_to(std::string& out) const {
  if (m_big) {
    out += *m_big;
    return;
  }
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, m_small);
  out.append(buffer, result.ptr);
}

std::string VersionNumber::to_string() const {
  std::string out;
  append_to(out);
  return out;
}

VersionNumber VersionNumber::plus_one() const {
  if (!m_big && m_small != UINT64_MAX) return VersionNumber(m_small + 1);
  std::string digits = to_string();
  std::size_t i = digits.size();
  while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
  if (i == 0)
    digits.insert(digits.begin(), '1');
  else
    ++digits[i - 1];
  return from_digits(digits);
}

std::strong_ordering VersionNumber::compare_big(const VersionNumber& a, const VersionNumber& b) {
  if (!a.m_big) return std::strong_ordering::less;  // every big value is above 2^64 - 1
  if (!b.m_big) return std::strong_ordering::greater;
  if (a.m_big->size() != b.m_big->size()) return a.m_big->size() <=> b.m_big->size();
  const int c = a.m_big->compare(*b.m_big);
  return c <=> 0;
}

std::size_t python_space_length(std::string_view text, std::size_t at) {
  if (at >= text.size()) return 0;
  const auto c0 = static_cast<unsigned char>(text[at]);
  if ((c0 >= 0x09 && c0 <= 0x0d) || (c0 >= 0x1c && c0 <= 0x20)) return 1;
  if (c0 < 0xc2 || at + 1 >= text.size()) return 0;
  const auto c1 = static_cast<unsigned char>(text[at + 1]);
  if (c0 == 0xc2) return (c1 == 0x85 || c1 == 0xa0) ? 2 : 0;
  if (at + 2 >= text.size()) return 0;
  const auto c2 = static_cast<unsigned char>(text[at + 2]);
  if (c0 == 0xe1) return (c1 == 0x9a && c2 == 0x80) ? 3 : 0;  // U+1680
  if (c0 == 0xe2 && c1 == 0x80) {                             // U+2000..200A, 2028, 2029, 202F
    return (c2 <= 0x8a || c2 == 0xa8 || c2 == 0xa9 || c2 == 0xaf) && c2 >= 0x80 ? 3 : 0;
  }
  if (c0 == 0xe2 && c1 == 0x81) return c2 == 0x9f ? 3 : 0;    // U+205F
  if (c0 == 0xe3) return (c1 == 0x80 && c2 == 0x80) ? 3 : 0;  // U+3000
  return 0;
}

std::string_view strip_python_space(std::string_view text) {
  while (const std::size_t length = python_space_length(text, 0)) text.remove_prefix(length);
  while (!text.empty()) {
    std::size_t length = 0;
    for (std::size_t candidate = 1; candidate <= 3 && candidate <= text.size(); ++candidate) {
      if (python_space_length(text, text.size() - candidate) == candidate) {
        length = candidate;
        break;
      }
    }
    if (length == 0) break;
    text.remove_suffix(length);
  }
  return text;
}

Result<Version> parse_version(std::string_view text) {
  Version version;
  Failure failure;
  if (!Parser(text).parse(version, failure)) {
    return fail(ErrorCategory::invalid_input, describe_failure(text, failure));
  }
  return version;
}

std::string Version::to_string() const {
  std::string out;
  out.reserve(16);
  append_public(out, *this);
  if (!local.empty()) {
    out.push_back('+');
    out += local_string();
  }
  return out;
}

std::string Version::public_string() const {
  std::string out;
  append_public(out, *this);
  return out;
}

std::string Version::base_string() const {
  std::string out;
  append_base(out, *this);
  return out;
}

std::string Version::local_string() const {
  std::string out;
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (i != 0) out.push_back('.');
    if (local[i].number)
      append_number(out, *local[i].number);
    else
      out += local[i].word;
  }
  return out;
}

std::optional<VersionKey> parse_version_key(std::string_view text) {
  // One scratch version per thread: its release vector keeps its capacity, and local words are
  // short enough for the small-string buffer, so the common spellings allocate nothing.
  thread_local Version scratch;
  scratch.epoch = 0;
  scratch.release.clear();
  scratch.pre.reset();
  scratch.post.reset();
  scratch.dev.reset();
  scratch.local.clear();
  Failure failure;
  if (!Parser(text).parse(scratch, failure)) return std::nullopt;
  return version_key(scratch);
}

bool same_base(const Version& a, const Version& b) {
  return a.epoch == b.epoch && compare_release(a.release, b.release) == 0;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  if (a.epoch != b.epoch) return a.epoch <=> b.epoch;
  if (const auto c = compare_release(a.release, b.release); c != 0) return c;
  if (const auto c = compare_pre(a, b); c != 0) return c;
  // post: absent is -Infinity; dev: absent is +Infinity; local: absent is -Infinity.
  if (a.post != b.post)
    return !a.post   ? std::strong_ordering::less
           : !b.post ? std::strong_ordering::greater
                     : *a.post <=> *b.post;
  if (a.dev != b.dev)
    return !a.dev ? std::strong_ordering::greater : !b.dev ? std::strong_ordering::less : *a.dev <=> *b.dev;
  return compare_local(a.local, b.local);
}

}  // namespace relforge::packaging
