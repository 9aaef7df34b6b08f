#pragma once
// Time as values: a Clock the caller passes in (the system one lives in platform/clock.hpp; tests
// pass a ManualClock), and UTC formatting of Unix seconds without the C library.
#include <cstdint>
#include <string>

namespace relforge::core {

class Clock {
public:
  virtual ~Clock() = default;
  // Seconds since the Unix epoch (UTC wall time).
  virtual std::int64_t unix_seconds() const = 0;
  // Milliseconds on a clock that never goes back (for elapsed times only; its epoch is arbitrary).
  virtual std::int64_t monotonic_ms() const = 0;
};

// A clock that stands still until told otherwise: for tests and replays.
class ManualClock final : public Clock {
public:
  explicit ManualClock(std::int64_t unix_seconds = 0) : m_unix_ms(unix_seconds * 1000) {}
  std::int64_t unix_seconds() const override { return m_unix_ms / 1000; }
  std::int64_t monotonic_ms() const override { return m_elapsed_ms; }
  // Moves both clocks forward by `ms` (never back).
  void advance_ms(std::int64_t ms) {
    m_unix_ms += ms;
    m_elapsed_ms += ms;
  }

private:
  std::int64_t m_unix_ms;
  std::int64_t m_elapsed_ms = 0;
};

// RFC 3339 in UTC with second precision: "2025-01-02T03:04:05Z".
std::string rfc3339_utc(std::int64_t unix_seconds);
// The UTC date as "20250102" (nightly versions, release dates).
std::string utc_date_compact(std::int64_t unix_seconds);
// The UTC time of day as "03:04:05" (log line prefixes).
std::string utc_time_of_day(std::int64_t unix_seconds);

}  // namespace relforge::core
