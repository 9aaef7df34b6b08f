#include "platform/clock.hpp"

#include <chrono>

namespace relforge::platform {
namespace {

class SystemClock final : public core::Clock {
public:
  std::int64_t unix_seconds() const override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  std::int64_t monotonic_ms() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

const core::Clock& system_clock() {
  static const SystemClock clock;
  return clock;
}

}  // namespace relforge::platform
