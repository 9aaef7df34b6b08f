#pragma once
// The one retry policy: how many attempts a transient failure gets and how long to wait before
// the next one (exponential backoff from `base_delay_seconds`, capped at `max_delay_seconds`).
#include <algorithm>
#include <cstdint>

namespace relforge::core {

enum class Transient { no, yes };

struct RetryPolicy {
  std::int64_t max_attempts = 5;         // attempts in all, the first included (>= 1)
  std::int64_t base_delay_seconds = 30;  // the wait after the first failure (>= 0)
  std::int64_t max_delay_seconds = 3600;

  // The wait after failed attempt number `attempt` (1 = the first): base * 2^(attempt-1), capped.
  std::int64_t delay_after(std::int64_t attempt) const {
    const std::int64_t cap = std::max<std::int64_t>(0, max_delay_seconds);
    const std::int64_t base = std::clamp<std::int64_t>(base_delay_seconds, 0, cap);
    const std::int64_t doublings = std::clamp<std::int64_t>(attempt - 1, 0, 62);
    // Compared before shifting, so no cap (up to INT64_MAX) can overflow the doubling.
    if (base > (cap >> doublings)) return cap;
    return base << doublings;
  }

  // Whether to stop after failed attempt number `attempt`: a permanent failure stops at once.
  bool gives_up(std::int64_t attempt, Transient transient) const {
    return transient == Transient::no || attempt >= max_attempts;
  }
};

}  // namespace relforge::core
