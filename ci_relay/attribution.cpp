#include "ci_relay/attribution.hpp"

#include <algorithm>

#include "ci_relay/cells.hpp"

namespace relforge::ci_relay {

std::vector<Finding> find_breakages(std::vector<CellPoint> points) {
  std::sort(points.begin(), points.end(),
            [](const CellPoint& a, const CellPoint& b) { return a.seq < b.seq; });
  std::vector<Finding> findings;
  std::optional<std::int64_t> last_good;
  bool open = false;
  for (const auto& point : points) {
    if (is_good(point.glyph)) {
      if (open) {
        findings.back().fixed_seq = point.seq;
        open = false;
      }
      last_good = point.seq;
    } else if (is_bad(point.glyph)) {
      // A job that has never been green has no good→bad edge: nothing to attribute yet.
      if (!open && last_good) {
        findings.push_back(Finding{*last_good, point.seq, std::nullopt});
        open = true;
      }
    }
  }
  return findings;
}

std::optional<std::int64_t> bisect_midpoint(const Finding& finding) {
  if (finding.suspects() <= 1) return std::nullopt;
  return finding.last_good_seq + finding.suspects() / 2;
}

}  // namespace relforge::ci_relay
