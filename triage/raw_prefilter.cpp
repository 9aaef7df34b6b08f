#include "triage/raw_prefilter.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "triage/classify.hpp"
#include "triage/hs_pattern.hpp"

namespace relforge::triage {
namespace {

// A line whose cleaned text starts with '+' (a context line) has it at the start or right after
// the timestamp prefix strip_timestamp removes, which ends in "Z" or "Z ". Literals, not the
// timestamp's shape: Hyperscan finds literals fastest, and a superset is all that is needed.
constexpr std::array<const char*, 3> k_plus_lines = {"^\\+", "Z\\+", "Z \\+"};

std::size_t line_start(std::string_view text, std::size_t pos) {
  while (pos > 0 && text[pos - 1] != '\n') --pos;
  return pos;
}

std::size_t line_end(std::string_view text, std::size_t pos) {
  const void* found = std::memchr(text.data() + pos, '\n', text.size() - pos);
  return found == nullptr ? text.size()
                          : static_cast<std::size_t>(static_cast<const char*>(found) - text.data());
}

struct Collector {
  std::string_view text;
  std::vector<std::size_t>* starts;
  std::size_t begin = 1, end = 0;  // the last candidate line, [begin, end]

  void mark(std::size_t pos) {
    if (pos >= text.size() || (pos >= begin && pos <= end)) return;
    begin = line_start(text, pos);
    end = line_end(text, pos);
    starts->push_back(begin);
  }
  static void on_end(void* context, unsigned, std::size_t offset) {
    auto* self = static_cast<Collector*>(context);
    // A match ending at `offset` has its last byte at offset - 1; an empty one sits at `offset`.
    if (offset > 0) self->mark(offset - 1);
    if (offset == 0 || self->text[offset - 1] == '\n') self->mark(offset);
  }
};

// Past the ANSI escape starting at `esc`, read exactly as strip_ansi reads it within its line:
// the newline ends the line, so no part of an escape takes it.
std::size_t skip_escape(std::string_view text, std::size_t esc) {
  const auto inside = [&](std::size_t i) { return i < text.size() && text[i] != '\n'; };
  std::size_t i = esc + 1;
  if (!inside(i)) return i;
  if (text[i] == '[') {
    ++i;
    while (i < text.size() && text[i] >= 0x30 && text[i] <= 0x3F) ++i;
    while (i < text.size() && text[i] >= 0x20 && text[i] <= 0x2F) ++i;
    if (inside(i)) ++i;
  } else if (text[i] == ']') {
    ++i;
    while (inside(i) && text[i] != '\x07' && text[i] != '\x1b') ++i;
    if (i < text.size() && text[i] == '\x07')
      ++i;
    else if (i + 1 < text.size() && text[i] == '\x1b' && text[i + 1] == '\\')
      i += 2;
  } else {
    ++i;
  }
  return i;
}

// How many of the eight bytes at `at` come before the first ESC (8: none is one). The zero-byte
// test is exact for the lowest-order hit, so the word is read in memory order on any machine.
std::size_t bytes_before_escape(const char* at) {
  constexpr std::uint64_t k_ones = 0x0101010101010101ULL, k_highs = 0x8080808080808080ULL;
  std::uint64_t word;
  std::memcpy(&word, at, 8);
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
  const std::uint64_t x = word ^ (k_ones * 0x1b);
  const std::uint64_t hits = (x - k_ones) & ~x & k_highs;
  return static_cast<std::size_t>(std::countr_zero(hits) / 8);
}

// `lines` without its ANSI escapes, newlines kept: every cleaned line is a substring of its line
// here (the timestamp and a trailing \r may remain, which the anchor-free patterns tolerate).
// `shifts` holds (offset in `out` after an escape, bytes removed so far), ascending.
// One pass, eight bytes at a time: coloured logs have an escape every 10-30 bytes, where a memchr
// and an append per escape were 40% of a classify.
void strip_escapes(std::string_view lines, std::string& out,
                   std::vector<std::pair<std::size_t, std::size_t>>& shifts) {
  shifts.clear();
  out.resize(lines.size());  // the most it can hold; kept between blocks, so rarely refilled
  const char* const src = lines.data();
  char* const dst = out.data();
  std::size_t pos = 0, written = 0, removed = 0;
  while (pos < lines.size()) {
    if (pos + 8 <= lines.size()) {
      // Once per 64-byte cache line, the one 1 KiB ahead: without it this load waited on memory
      // for ~10% of a classify of a log larger than the cache.
      if ((pos & 63) < 8) __builtin_prefetch(src + pos + 1024);
      std::memcpy(dst + written, src + pos, 8);  // written <= pos: room for all 8
      const std::size_t before = bytes_before_escape(src + pos);
      pos += before;
      written += before;
      if (before == 8) continue;
    } else if (src[pos] != '\x1b') {
      dst[written++] = src[pos++];
      continue;
    }
    const std::size_t esc = pos;
    pos = skip_escape(lines, esc);
    removed += pos - esc;
    shifts.emplace_back(written, removed);
  }
  out.resize(written);
}

// Lines longer than k_max_line_bytes are cut after cleaning: candidates, so that they are counted.
void mark_long_lines(Collector& collector) {
  const std::string_view text = collector.text;
  std::size_t pos = 0;  // a line start
  while (pos < text.size()) {
    const std::size_t window = std::min(text.size() - pos, k_max_line_bytes + 1);
    std::size_t last = pos + window;
    while (last > pos && text[last - 1] != '\n') --last;
    if (last > pos) {  // every line starting in [pos, last) is at most k_max_line_bytes long
      pos = last;
      continue;
    }
    collector.mark(pos);
    pos = line_end(text, pos) + 1;
  }
}

void mark_non_ascii_lines(Collector& collector) {
  const std::string_view text = collector.text;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      if (pos + 8 <= text.size()) {
        std::uint64_t word;
        std::memcpy(&word, text.data() + pos, 8);
        if ((word & 0x8080808080808080ULL) == 0) {
          pos += 8;
          continue;
        }
      }
      ++pos;
      continue;
    }
    collector.mark(pos);
    pos = line_end(text, pos) + 1;
  }
}

}  // namespace

std::shared_ptr<const RawPrefilter> RawPrefilter::build(const RuleSpec& spec) {
  if (!HyperscanSet::available()) return nullptr;
  // Rules, then skip-block starts (the layout of CompiledRules::rule_set), then block ends.
  std::vector<std::string> sources;
  for (const auto& rule : spec.rules) sources.push_back(rule.pattern);
  for (const auto& block : spec.skip_blocks) sources.push_back(block.start);
  for (const auto& block : spec.skip_blocks) sources.push_back(block.end);
  auto filter = std::make_shared<RawPrefilter>();
  std::vector<std::string> patterns;
  for (const auto& source : sources) {
    auto pattern = to_hyperscan(source, /*drop_anchors=*/true);
    if (!pattern) return nullptr;
    filter->m_non_ascii_lines = filter->m_non_ascii_lines || pattern->case_insensitive;
    patterns.push_back(std::move(pattern->text));
  }
  filter->m_reported = spec.rules.size() + spec.skip_blocks.size();
  for (const char* plus : k_plus_lines) patterns.emplace_back(plus);
  filter->m_set = HyperscanSet::compile(patterns, HyperscanSet::Mode::ends);
  if (filter->m_set == nullptr) return nullptr;
  return filter;
}

RawPrefilter::Scanner::Scanner(std::shared_ptr<const RawPrefilter> filter)
    : m_filter(std::move(filter)), m_scanner(m_filter->m_set), m_seen(m_filter->m_reported) {}

bool RawPrefilter::Scanner::patterns_in(std::string_view cleaned, std::vector<int>& hits) {
  hits.clear();
  std::fill(m_seen.begin(), m_seen.end(), 0);
  struct Target {
    std::vector<char>* seen;
    std::vector<int>* hits;
  } target{&m_seen, &hits};
  const auto on_id = [](void* context, unsigned id, std::size_t) {
    auto* t = static_cast<Target*>(context);
    if (id < t->seen->size() && (*t->seen)[id] == 0) {
      (*t->seen)[id] = 1;
      t->hits->push_back(static_cast<int>(id));
    }
  };
  if (!m_scanner.scan_ends(cleaned, on_id, &target)) return false;
  std::sort(hits.begin(), hits.end());
  return true;
}

bool RawPrefilter::Scanner::candidates(std::string_view lines, std::vector<std::size_t>& starts) {
  starts.clear();
  // Escapes can sit anywhere, even inside a word: the patterns run over the lines without them.
  const bool escapes = std::memchr(lines.data(), '\x1b', lines.size()) != nullptr;
  if (escapes) strip_escapes(lines, m_stripped, m_shifts);
  const std::string_view scanned = escapes ? std::string_view(m_stripped) : lines;
  Collector found{scanned, &starts};
  if (!m_scanner.scan_ends(scanned, &Collector::on_end, &found)) return false;
  if (escapes) {  // back to offsets in `lines`: add what was removed before each line
    for (auto& start : starts) {
      auto after = std::lower_bound(m_shifts.begin(), m_shifts.end(), std::make_pair(start, std::size_t{0}));
      if (after != m_shifts.begin()) start += std::prev(after)->second;
    }
  }
  Collector collector{lines, &starts};
  mark_long_lines(collector);
  if (m_filter->m_non_ascii_lines) mark_non_ascii_lines(collector);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return true;
}

}  // namespace relforge::triage
