#pragma once
// The log classifier: every rule keeps the last line it matched; the highest-priority rule that
// matched anywhere wins. Logs stream through a LogScanner in pieces of any size (bounded memory).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "triage/rules.hpp"

namespace relforge::triage {

struct RuleMatch {
  std::string rule;
  std::string category;
  bool flaky = false;
  std::size_t priority = 0;           // index of the rule in the file (0 = highest)
  std::string line;                   // the cleaned line (timestamp and ANSI escapes removed)
  std::uint64_t line_num = 0;         // 1-based line number in the original log
  std::vector<std::string> captures;  // the regex groups that took part (else the whole match)
  std::vector<std::string> context;   // up to 12 earlier lines starting with '+', oldest first
  bool operator==(const RuleMatch&) const = default;
};

struct Classification {
  std::optional<RuleMatch> match;  // empty when no rule matched
  std::uint64_t lines = 0;
  std::uint64_t bytes = 0;
  std::uint64_t long_lines_cut = 0;  // lines longer than k_max_line_bytes, matched on their prefix
  bool ends_mid_line = false;        // no final newline: the log may be truncated
  bool operator==(const Classification&) const = default;
};

inline constexpr std::size_t k_max_line_bytes = 16 * 1024;
inline constexpr std::size_t k_max_context_lines = 12;

struct ScanOptions {
  // Clean and match only the lines a prefilter over the raw log says a rule could take (the same
  // answer, faster); false cleans every line (the reference the tests compare with).
  bool raw_prefilter = true;
};

class LogScanner {
public:
  explicit LogScanner(std::shared_ptr<const CompiledRules> rules, ScanOptions options = {});
  ~LogScanner();
  LogScanner(const LogScanner&) = delete;
  LogScanner& operator=(const LogScanner&) = delete;

  // Feeds the next piece of the log; pieces may split lines anywhere.
  void feed(std::string_view bytes);
  // Ends the log and returns the result; the scanner is spent afterwards.
  Classification finish();

private:
  struct State;
  std::unique_ptr<State> m_state;
};

Classification classify(std::string_view log, std::shared_ptr<const CompiledRules> rules,
                        ScanOptions options = {});

// Streams a file through a LogScanner; refuses a file that looks binary (NUL bytes at the start).
Result<Classification> classify_file(const std::filesystem::path& path,
                                     std::shared_ptr<const CompiledRules> rules, ScanOptions options = {});

}  // namespace relforge::triage
