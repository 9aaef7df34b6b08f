#pragma once
// What became of a cell in a build, and its one stable machine name (snake_case), used alike in
// the text summary, `--json` and the build ledger; scripts may rely on these names.
#include <optional>
#include <string>
#include <string_view>

namespace relforge::builders {

enum class CellResult {
  succeeded,
  failed,
  timed_out,
  up_to_date,
  waiting,
  would_build,
  not_started,
  interrupted
};

// "succeeded", "failed", "timed_out", "up_to_date", "waiting", "would_build", "not_started",
// "interrupted".
std::string cell_result_name(CellResult result);

// The result a name stands for: the names above, and the spellings earlier versions wrote
// ("timed out", "up to date", "waiting for a runner", ...). Nullopt for anything else.
std::optional<CellResult> parse_cell_result(std::string_view name);

// The ledger's name of an attempt still in progress (no CellResult yet).
inline constexpr std::string_view k_running_result = "running";

}  // namespace relforge::builders
