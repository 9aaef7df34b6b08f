#pragma once
// The files a complete release has, from relforge.toml's matrix (the join behind `promote
// --complete`: matrix → channels), and where relforge.toml is when no --config names it.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "channels/maintain.hpp"
#include "core/error.hpp"

namespace relforge::cli {

// `explicit_path` when given; else the first relforge.toml in `start` or one of its parents.
Result<std::filesystem::path> find_config(const std::string& explicit_path,
                                          const std::filesystem::path& start);

// Every cell of `matrix_channel` ("release") with the wheel it builds at `version` (its public part).
Result<std::vector<channels::ExpectedFile>> release_matrix_files(const std::filesystem::path& config,
                                                                 const std::string& matrix_channel,
                                                                 std::string_view version);

}  // namespace relforge::cli
