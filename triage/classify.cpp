#include "triage/classify.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "core/utf8.hpp"
#include "platform/file_chunks.hpp"
#include "triage/compiled_rules.hpp"
#include "triage/preprocess.hpp"

namespace relforge::triage {
namespace {

// Cleaned lines are batched so that one RE2::Set pass can rule out a whole chunk; only chunks
// where a rule that could still win matched are walked line by line.
constexpr std::size_t k_chunk_bytes = 256 * 1024;
constexpr std::size_t k_max_raw_line_bytes = 4 * k_max_line_bytes;
// The raw prefilter scans this much at a time (whole lines), so its candidate list stays small.
constexpr std::size_t k_slice_bytes = 1 << 20;

// Hyperscan reads bytes and RE2 reads UTF-8: they agree on ASCII text only.
bool is_ascii(std::string_view text) {
  std::uint64_t bits = 0;
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    bits |= word;
  }
  for (; i < text.size(); ++i) bits |= static_cast<unsigned char>(text[i]);
  return (bits & 0x8080808080808080ULL) == 0;
}

// Lines not worth cleaning are only counted, eight bytes at a time.
std::uint64_t count_newlines(std::string_view text) {
  constexpr std::uint64_t k_ones = 0x0101010101010101ULL, k_low7 = 0x7F7F7F7F7F7F7F7FULL;
  std::uint64_t count = 0;
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    const std::uint64_t x = word ^ (k_ones * '\n');
    // The high bit of each byte that is zero in x, exactly (no borrow between bytes).
    const std::uint64_t zero_high_bits = ~(((x & k_low7) + k_low7) | x | k_low7);
    count += ((zero_high_bits >> 7) * k_ones) >> 56;  // the sum of the eight 0/1 bytes
  }
  for (; i < text.size(); ++i) count += text[i] == '\n' ? 1 : 0;
  return count;
}

std::size_t find_newline(std::string_view text, std::size_t from) {
  const void* found = std::memchr(text.data() + from, '\n', text.size() - from);
  return found == nullptr ? std::string_view::npos
                          : static_cast<std::size_t>(static_cast<const char*>(found) - text.data());
}

}  // namespace

struct LogScanner::State {
  std::shared_ptr<const CompiledRules> rules;
  Classification result;
  std::string pending;  // the unfinished last line of the previous feed
  bool pending_cut = false;
  std::string chunk;
  std::vector<std::size_t> starts;  // offsets of the chunk's lines
  std::vector<std::uint64_t> numbers;
  // The last k_max_context_lines "+ command" lines, a ring whose strings keep their capacity.
  std::array<std::string, k_max_context_lines> plus_lines;
  std::size_t plus_next = 0, plus_count = 0;
  int active_block = -1;
  std::size_t best = 0;  // priority of the best match so far; rules.size() when none
  std::string scratch;
  std::string utf8_scratch;
  std::vector<int> hits;
  std::optional<HyperscanSet::Scanner> fast;
  std::optional<RawPrefilter::Scanner> raw;
  std::vector<std::size_t> raw_candidates;

  std::string_view chunk_line(std::size_t i) const {
    const std::size_t end = (i + 1 < starts.size() ? starts[i + 1] : chunk.size()) - 1;
    return std::string_view(chunk).substr(starts[i], end - starts[i]);
  }

  void add_line(std::string_view raw_line, bool cut) {
    const std::uint64_t number = ++result.lines;
    std::string_view line = clean_line(raw_line, scratch);
    if (cut || line.size() > k_max_line_bytes) {
      ++result.long_lines_cut;
      line = line.substr(0, k_max_line_bytes);
    }
    // RE2 reads UTF-8: a stray byte (a Latin-1 compiler message) would end `.` and `\S` there, so
    // each one is matched, captured and shown as U+FFFD instead.
    if (!is_ascii(line) && !core::is_valid_utf8(line)) {
      utf8_scratch = core::to_valid_utf8(line);
      line = utf8_scratch;
    }
    starts.push_back(chunk.size());
    numbers.push_back(number);
    chunk.append(line);
    chunk.push_back('\n');
    if (chunk.size() >= k_chunk_bytes) process_chunk();
  }

  // Complete lines ("...\n"), each cleaned and matched.
  void add_lines(std::string_view lines) {
    std::size_t pos = 0;
    while (pos < lines.size()) {
      const std::size_t end = find_newline(lines, pos);
      add_line(lines.substr(pos, end - pos), end - pos > k_max_raw_line_bytes);
      pos = end + 1;
    }
  }

  // Complete lines; only the raw prefilter's candidates are cleaned and matched, the rest counted.
  void add_lines_prefiltered(std::string_view lines) {
    while (!lines.empty()) {
      std::size_t cut = std::min(lines.size(), k_slice_bytes);
      while (cut > 0 && lines[cut - 1] != '\n') --cut;
      if (cut == 0) {  // one line longer than a slice: cut anyway, so it is a candidate
        const std::size_t end = find_newline(lines, 0);
        add_lines(lines.substr(0, end + 1));
        lines.remove_prefix(end + 1);
        continue;
      }
      const std::string_view slice = lines.substr(0, cut);
      lines.remove_prefix(cut);
      if (!raw->candidates(slice, raw_candidates)) {
        add_lines(slice);
        continue;
      }
      std::size_t pos = 0;
      for (const std::size_t start : raw_candidates) {
        result.lines += count_newlines(slice.substr(pos, start - pos));
        const std::size_t end = find_newline(slice, start);
        add_line(slice.substr(start, end - start), end - start > k_max_raw_line_bytes);
        pos = end + 1;
      }
      result.lines += count_newlines(slice.substr(pos));
    }
  }

  void push_plus(std::string_view line) {
    plus_lines[plus_next].assign(line);
    plus_next = (plus_next + 1) % k_max_context_lines;
    plus_count = std::min(plus_count + 1, k_max_context_lines);
  }

  bool ignored(std::string_view line) const {
    return std::any_of(rules->ignore.begin(), rules->ignore.end(),
                       [&](const auto& re) { return re2::RE2::PartialMatch(line, *re); });
  }

  void drop_skipped_blocks() {
    std::string kept;
    std::vector<std::size_t> kept_starts;
    std::vector<std::uint64_t> kept_numbers;
    for (std::size_t i = 0; i < starts.size(); ++i) {
      const auto line = chunk_line(i);
      if (active_block >= 0) {
        if (re2::RE2::PartialMatch(line, *rules->block_end[static_cast<std::size_t>(active_block)]))
          active_block = -1;
        continue;
      }
      bool starts_block = false;
      for (std::size_t k = 0; k < rules->block_start.size() && !starts_block; ++k) {
        if (re2::RE2::PartialMatch(line, *rules->block_start[k])) {
          active_block = static_cast<int>(k);
          starts_block = true;
        }
      }
      if (starts_block) continue;
      kept_starts.push_back(kept.size());
      kept_numbers.push_back(numbers[i]);
      kept.append(line);
      kept.push_back('\n');
    }
    chunk = std::move(kept);
    starts = std::move(kept_starts);
    numbers = std::move(kept_numbers);
  }

  void process_chunk() {
    if (!starts.empty()) {
      match_set();
      const auto rule_count = static_cast<int>(rules->rules.size());
      const bool banner = std::any_of(hits.begin(), hits.end(), [&](int hit) { return hit >= rule_count; });
      if (active_block >= 0 || banner) {  // rare: filter the chunk, then match what is left
        drop_skipped_blocks();
        match_set();
      }
      if (!starts.empty()) scan_chunk();
    }
    chunk.clear();
    starts.clear();
    numbers.clear();
  }

  void match_set() {
    if (raw && is_ascii(chunk) && raw->patterns_in(chunk, hits)) return;
    if (fast && is_ascii(chunk) && fast->scan(chunk, hits)) return;
    hits.clear();
    re2::RE2::Set::ErrorInfo error{};
    if (!rules->rule_set->Match(chunk, &hits, &error) && error.kind != re2::RE2::Set::kNoError) {
      // The DFA gave up (memory): let every rule that could still win check each line.
      hits.clear();
      const std::size_t total = rules->rules.size() + rules->block_start.size();
      for (std::size_t i = 0; i < total; ++i) hits.push_back(static_cast<int>(i));
    }
  }

  void scan_chunk() {
    std::vector<std::size_t> candidates;
    for (const int hit : hits) {
      const auto index = static_cast<std::size_t>(hit);
      if (index < rules->rules.size() && index <= best) candidates.push_back(index);
    }
    if (candidates.empty()) {
      remember_plus_lines_only();
      return;
    }
    std::sort(candidates.begin(), candidates.end());
    // Summary rules that matched somewhere in the chunk, whatever their priority: their lines are
    // theirs alone.
    std::vector<std::size_t> summaries;
    for (const int hit : hits) {
      const auto index = static_cast<std::size_t>(hit);
      if (index < rules->rules.size() && rules->spec.rules[index].summary) summaries.push_back(index);
    }
    const auto claimed = [&](std::string_view line) {
      return std::any_of(summaries.begin(), summaries.end(),
                         [&](std::size_t k) { return re2::RE2::PartialMatch(line, *rules->rules[k]); });
    };
    for (std::size_t i = 0; i < starts.size(); ++i) {
      const auto line = chunk_line(i);
      for (const std::size_t candidate : candidates) {
        if (candidate > best) break;
        if (!re2::RE2::PartialMatch(line, *rules->rules[candidate])) continue;
        if (ignored(line)) break;
        if (!rules->spec.rules[candidate].summary && claimed(line)) continue;
        record(candidate, line, numbers[i]);
        break;
      }
      if (!line.empty() && line.front() == '+') push_plus(line);
    }
  }

  // No line of this chunk can change the result: only the trailing context lines matter.
  void remember_plus_lines_only() {
    std::vector<std::string_view> found;
    for (std::size_t i = starts.size(); i-- > 0 && found.size() < k_max_context_lines;) {
      const auto line = chunk_line(i);
      if (!line.empty() && line.front() == '+') found.push_back(line);
    }
    for (auto it = found.rbegin(); it != found.rend(); ++it) push_plus(*it);
  }

  void record(std::size_t priority, std::string_view line, std::uint64_t number) {
    best = priority;
    const Rule& rule = rules->spec.rules[priority];
    RuleMatch match;
    match.rule = rule.name;
    match.category = rule.category;
    match.flaky = rule.flaky;
    match.priority = priority;
    match.line = std::string(line);
    match.line_num = number;
    match.context.clear();
    for (std::size_t i = 0; i < plus_count; ++i)
      match.context.push_back(
          plus_lines[(plus_next + k_max_context_lines - plus_count + i) % k_max_context_lines]);
    result.match = std::move(match);
  }

  void fill_captures() {
    if (!result.match) return;
    auto& match = *result.match;
    const re2::RE2& re = *rules->rules[match.priority];
    const int groups = re.NumberOfCapturingGroups();
    std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(groups) + 1);
    if (!re.Match(match.line, 0, match.line.size(), re2::RE2::UNANCHORED, pieces.data(), groups + 1)) return;
    for (std::size_t i = 1; i < pieces.size(); ++i) {
      if (pieces[i].data() != nullptr) match.captures.emplace_back(pieces[i].data(), pieces[i].size());
    }
    // No group took part (or there are none): the whole match is the capture.
    if (match.captures.empty()) match.captures.emplace_back(pieces[0].data(), pieces[0].size());
  }
};

LogScanner::LogScanner(std::shared_ptr<const CompiledRules> rules, ScanOptions options)
    : m_state(std::make_unique<State>()) {
  m_state->best = rules->rules.size();
  m_state->rules = std::move(rules);
  if (m_state->rules->fast_set) m_state->fast.emplace(m_state->rules->fast_set);
  if (options.raw_prefilter && m_state->rules->raw_prefilter)
    m_state->raw.emplace(m_state->rules->raw_prefilter);
  m_state->chunk.reserve(k_chunk_bytes + k_max_line_bytes + 1);
}

LogScanner::~LogScanner() = default;

void LogScanner::feed(std::string_view bytes) {
  State& s = *m_state;
  s.result.bytes += bytes.size();
  if (!s.pending.empty() || s.pending_cut) {  // finish the line the previous piece began
    const std::size_t end = find_newline(bytes, 0);
    const std::size_t length = end == std::string_view::npos ? bytes.size() : end;
    const std::size_t room = k_max_raw_line_bytes - std::min(k_max_raw_line_bytes, s.pending.size());
    if (length > room) s.pending_cut = true;
    s.pending.append(bytes.substr(0, std::min(room, length)));
    if (end == std::string_view::npos) return;
    s.add_line(s.pending, s.pending_cut);
    s.pending.clear();
    s.pending_cut = false;
    bytes.remove_prefix(end + 1);
  }
  std::size_t complete = bytes.size();
  while (complete > 0 && bytes[complete - 1] != '\n') --complete;
  if (complete > 0) {
    if (s.raw)
      s.add_lines_prefiltered(bytes.substr(0, complete));
    else
      s.add_lines(bytes.substr(0, complete));
    bytes.remove_prefix(complete);
  }
  if (!bytes.empty()) {  // the start of a line the next piece ends
    if (bytes.size() > k_max_raw_line_bytes) s.pending_cut = true;
    s.pending.append(bytes.substr(0, std::min(k_max_raw_line_bytes, bytes.size())));
  }
}

Classification LogScanner::finish() {
  State& s = *m_state;
  if (!s.pending.empty() || s.pending_cut) {
    s.result.ends_mid_line = true;
    s.add_line(s.pending, s.pending_cut);
    s.pending.clear();
  }
  s.process_chunk();
  s.fill_captures();
  return std::move(s.result);
}

Classification classify(std::string_view log, std::shared_ptr<const CompiledRules> rules,
                        ScanOptions options) {
  LogScanner scanner(std::move(rules), options);
  scanner.feed(log);
  return scanner.finish();
}

Result<Classification> classify_file(const std::filesystem::path& path,
                                     std::shared_ptr<const CompiledRules> rules, ScanOptions options) {
  std::error_code code;
  const auto status = std::filesystem::status(path, code);
  if (!std::filesystem::exists(status))
    return fail(ErrorCategory::not_found, path.string() + ": no such log file");
  if (std::filesystem::is_directory(status))
    return fail(ErrorCategory::invalid_input, path.string() + " is a folder: name the log files in it");
  if (!std::filesystem::is_regular_file(status))
    return fail(ErrorCategory::invalid_input,
                path.string() +
                    " is not a regular file (a pipe or a device): save the log to a file and "
                    "classify that");
  auto chunks = platform::FileChunks::open(path);
  if (!chunks) return tl::unexpected(chunks.error());
  LogScanner scanner(std::move(rules), options);
  bool first = true;
  while (true) {
    auto piece = chunks->next();
    if (!piece) return tl::unexpected(piece.error());
    if (piece->empty()) break;
    if (first) {
      first = false;
      if (piece->size() >= 2 && (*piece)[0] == '\x1f' && (*piece)[1] == '\x8b') {
        return fail(ErrorCategory::invalid_input,
                    path.string() + ": is gzip-compressed; decompress it first (gunzip -k)");
      }
      const auto nul = piece->substr(0, 8192).find('\0');
      if (nul != std::string_view::npos) {
        return fail(ErrorCategory::invalid_input, path.string() + ": looks binary (NUL byte at offset " +
                                                      std::to_string(nul) + "); pass a text CI log");
      }
    }
    scanner.feed(*piece);
  }
  return scanner.finish();
}

}  // namespace relforge::triage
