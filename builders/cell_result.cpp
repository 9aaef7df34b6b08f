#include "builders/cell_result.hpp"

#include <array>
#include <utility>

namespace relforge::builders {

std::string cell_result_name(CellResult result) {
  switch (result) {
    case CellResult::succeeded:
      return "succeeded";
    case CellResult::failed:
      return "failed";
    case CellResult::timed_out:
      return "timed_out";
    case CellResult::up_to_date:
      return "up_to_date";
    case CellResult::waiting:
      return "waiting";
    case CellResult::would_build:
      return "would_build";
    case CellResult::not_started:
      return "not_started";
    case CellResult::interrupted:
      return "interrupted";
  }
  return "failed";  // unreachable: every value is named above
}

std::optional<CellResult> parse_cell_result(std::string_view name) {
  for (const auto result :
       {CellResult::succeeded, CellResult::failed, CellResult::timed_out, CellResult::up_to_date,
        CellResult::waiting, CellResult::would_build, CellResult::not_started, CellResult::interrupted})
    if (name == cell_result_name(result)) return result;
  // Spellings of the text and JSON output before the names were unified; rows and saved reports
  // written with them still read.
  static constexpr std::array<std::pair<std::string_view, CellResult>, 5> k_older = {{
      {"timed out", CellResult::timed_out},
      {"up to date", CellResult::up_to_date},
      {"waiting for a runner", CellResult::waiting},
      {"would build", CellResult::would_build},
      {"not started", CellResult::not_started},
  }};
  for (const auto& [older, result] : k_older)
    if (name == older) return result;
  return std::nullopt;
}

}  // namespace relforge::builders
