#pragma once
// Breakage attribution over the upstream commit order: a breakage opens when a job goes from good
// to bad, its suspects are (last good, first bad], and it closes at the next good commit.
#include <cstdint>
#include <optional>
#include <vector>

namespace relforge::ci_relay {

struct CellPoint {
  std::int64_t seq = 0;  // upstream commit position
  char glyph = '~';
};

struct Finding {
  std::int64_t last_good_seq = 0;
  std::int64_t first_bad_seq = 0;
  std::optional<std::int64_t> fixed_seq;  // first good commit after the breakage

  std::int64_t suspects() const { return first_bad_seq - last_good_seq; }
};

// `points` in any order; flaky cells count as good, so they never open a breakage.
std::vector<Finding> find_breakages(std::vector<CellPoint> points);

// The commit to test next to halve the suspect range; nullopt when it holds one commit.
std::optional<std::int64_t> bisect_midpoint(const Finding& finding);

}  // namespace relforge::ci_relay
