#pragma once
// The documented exit codes (docs/exit-codes.md). Only cli/ chooses them.
#include "core/error.hpp"

namespace relforge::cli {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_false = 1;  // a query answered "no" (e.g. `version match` matched none)
inline constexpr int k_exit_usage = 2;  // bad command line or invalid input

int exit_code_for(ErrorCategory category);

}  // namespace relforge::cli
