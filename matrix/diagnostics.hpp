#pragma once
// matrix names the shared config diagnostics (platform/diagnostics.hpp) as its own.
#include "platform/diagnostics.hpp"

namespace relforge::matrix {

using platform::fail_at;
using platform::Location;
using platform::quoted_list;
using platform::suggestion;
using platform::where;

}  // namespace relforge::matrix
