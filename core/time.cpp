#include "core/time.hpp"

#include <chrono>
#include <cstdio>

namespace relforge::core {
namespace {

struct UtcParts {
  int year;
  unsigned month, day;
  long long hour, minute, second;
};

// std::chrono's civil calendar, not gmtime_r: core stays on the standard library, and this works
// for any 64-bit second count gmtime would accept on this platform.
UtcParts utc_parts(std::int64_t unix_seconds) {
  using namespace std::chrono;
  const sys_seconds when{seconds{unix_seconds}};
  const auto day = floor<days>(when);
  const year_month_day date{day};
  const auto of_day = (when - day).count();
  return {static_cast<int>(date.year()),
          static_cast<unsigned>(date.month()),
          static_cast<unsigned>(date.day()),
          of_day / 3600,
          of_day / 60 % 60,
          of_day % 60};
}

}  // namespace

std::string rfc3339_utc(std::int64_t unix_seconds) {
  const auto p = utc_parts(unix_seconds);
  char text[48];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02lld:%02lld:%02lldZ", p.year, p.month, p.day, p.hour,
                p.minute, p.second);
  return text;
}

std::string utc_date_compact(std::int64_t unix_seconds) {
  const auto p = utc_parts(unix_seconds);
  char text[32];
  std::snprintf(text, sizeof text, "%04d%02u%02u", p.year, p.month, p.day);
  return text;
}

std::string utc_time_of_day(std::int64_t unix_seconds) {
  const auto p = utc_parts(unix_seconds);
  char text[32];
  std::snprintf(text, sizeof text, "%02lld:%02lld:%02lld", p.hour, p.minute, p.second);
  return text;
}

}  // namespace relforge::core
