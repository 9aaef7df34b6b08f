#include "cli/exit_codes.hpp"

namespace relforge::cli {

int exit_code_for(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::invalid_input:
      return k_exit_usage;
    case ErrorCategory::nothing_selected:
      return 3;
    case ErrorCategory::not_found:
      return 4;
    case ErrorCategory::conflict:
      return 5;
    case ErrorCategory::io:
      return 6;
    case ErrorCategory::network:
      return 7;
    case ErrorCategory::auth:
      return 8;
    case ErrorCategory::integrity:
      return 9;
    case ErrorCategory::internal:
      return 70;
  }
  return 70;
}

}  // namespace relforge::cli
