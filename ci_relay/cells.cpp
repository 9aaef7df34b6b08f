#include "ci_relay/cells.hpp"

#include <array>

namespace relforge::ci_relay {

char merge_cell(const std::vector<RunOutcome>& runs) {
  if (runs.empty()) return '~';
  bool success = false, failure = false, timed_out = false, cancelled = false, skipped = false,
       pending = false;
  for (const auto& run : runs) {
    if (run.status != "completed" || !run.conclusion) {
      pending = true;
      continue;
    }
    const std::string& c = *run.conclusion;
    // neutral counts as a pass; startup_failure is a failure that never reached the tests.
    if (c == "success" || c == "neutral")
      success = true;
    else if (c == "failure" || c == "startup_failure")
      failure = true;
    else if (c == "timed_out")
      timed_out = true;
    else if (c == "cancelled")
      cancelled = true;
    else if (c == "skipped")
      skipped = true;
    else
      pending = true;  // action_required and friends: no result yet
  }
  if (success && (failure || timed_out)) return 'F';
  if (failure) return 'X';
  if (timed_out) return 'T';
  if (success) return 'O';
  // cancelled loses to any non-cancelled run, so a skipped attempt outranks it.
  if (skipped) return 'S';
  if (cancelled) return 'C';
  return pending ? '?' : '~';
}

bool is_github_conclusion(std::string_view conclusion) {
  static constexpr std::array<std::string_view, 9> k_conclusions = {
      "success",   "failure",         "neutral", "cancelled",      "skipped",
      "timed_out", "action_required", "stale",   "startup_failure"};
  for (const auto known : k_conclusions) {
    if (conclusion == known) return true;
  }
  return false;
}

}  // namespace relforge::ci_relay
