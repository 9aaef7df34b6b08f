#pragma once
// RFC 9110 §14 byte ranges for one representation of a known size. Only a single range is
// honoured; several ranges, another unit or a malformed header mean "send it all" (the RFC lets a
// server ignore Range). Pure.
#include <cstdint>
#include <string_view>

namespace relforge::platform {

enum class RangeOutcome { full, partial, unsatisfiable };

struct RangeAnswer {
  RangeOutcome outcome = RangeOutcome::full;
  std::uint64_t first = 0;  // partial: the inclusive byte interval [first, last] inside the size
  std::uint64_t last = 0;
};

RangeAnswer evaluate_range(std::string_view header, std::uint64_t size);

}  // namespace relforge::platform
