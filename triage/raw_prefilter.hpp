#pragma once
// Internal: finds, in a run of raw log lines (timestamps, ANSI escapes and `\r` still there), the
// lines worth cleaning and matching: a superset of the lines that any rule, skip-block banner or
// the context (`+` lines) could take. All other lines are only counted.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "triage/hyperscan_set.hpp"
#include "triage/rules.hpp"

namespace relforge::triage {

class RawPrefilter {
public:
  // nullptr when Hyperscan is not built in or a pattern cannot be carried over exactly enough
  // (then every line is cleaned, as without the prefilter).
  static std::shared_ptr<const RawPrefilter> build(const RuleSpec& spec);
  const HyperscanSet& database() const { return *m_set; }  // never null in a built filter

  // One per scanning thread.
  class Scanner {
  public:
    explicit Scanner(std::shared_ptr<const RawPrefilter> filter);
    // `lines` ends with '\n'. Fills `starts` with the ascending offsets of the candidate lines;
    // false when the scan failed (then every line is a candidate).
    bool candidates(std::string_view lines, std::vector<std::size_t>& starts);
    // Over cleaned lines: the rules (index i) and skip-block starts (rules + k) that may match
    // there, like the RE2::Set of CompiledRules; false when the scan failed.
    bool patterns_in(std::string_view cleaned, std::vector<int>& hits);

  private:
    std::shared_ptr<const RawPrefilter> m_filter;
    HyperscanSet::Scanner m_scanner;
    std::vector<char> m_seen;
    std::string m_stripped;  // the lines without ANSI escapes
    std::vector<std::pair<std::size_t, std::size_t>> m_shifts;
  };

private:
  std::shared_ptr<const HyperscanSet> m_set;
  std::size_t m_reported = 0;      // ids below this are rules and skip-block starts, in that order
  bool m_non_ascii_lines = false;  // a case-insensitive rule: lines with bytes >= 0x80 are candidates
};

}  // namespace relforge::triage
