#pragma once
// The system's clocks behind core::Clock: cli/ reads time through this one object and hands it
// (or values read from it) to the modules; nothing else calls std::chrono's now().
#include "core/time.hpp"

namespace relforge::platform {

// The process-wide system clock (wall time from system_clock, elapsed time from steady_clock).
const core::Clock& system_clock();

}  // namespace relforge::platform
