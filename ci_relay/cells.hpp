#pragma once
// HUD's cell merge: the runs of one (commit, job) cell collapse to one glyph, independent of
// order. O success, F flaky, X failure, C cancelled, T timed out, S skipped, ? pending, ~ no job.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace relforge::ci_relay {

struct RunOutcome {
  std::string status;                     // queued | in_progress | completed
  std::optional<std::string> conclusion;  // set once completed
};

char merge_cell(const std::vector<RunOutcome>& runs);

// A conclusion GitHub reports for a job or check run (success, failure, neutral, cancelled,
// skipped, timed_out, action_required, stale, startup_failure); exact and lower-case.
bool is_github_conclusion(std::string_view conclusion);

inline bool is_good(char glyph) {
  return glyph == 'O' || glyph == 'F';
}
inline bool is_bad(char glyph) {
  return glyph == 'X' || glyph == 'T';
}

}  // namespace relforge::ci_relay
