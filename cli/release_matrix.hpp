#pragma once
// The files a complete release has, from relforge.toml's matrix (the join behind `promote
// --complete`: matrix → channels). Where relforge.toml is: cli/environment.hpp find_config.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "channels/maintain.hpp"
#include "core/error.hpp"

namespace relforge::cli {

// Every cell of `matrix_channel` ("release") with the wheel it builds at `version` (its public part).
Result<std::vector<channels::ExpectedFile>> release_matrix_files(const std::filesystem::path& config,
                                                                 const std::string& matrix_channel,
                                                                 std::string_view version);

}  // namespace relforge::cli
