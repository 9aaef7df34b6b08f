#pragma once
// Project-name normalisation: PEP 503 (index URLs) and the PEP 427 file-name form.
#include <string>
#include <string_view>

namespace relforge::packaging {

// re.sub(r"[-_.]+", "-", name).lower(): the name in simple-index URLs.
std::string normalize_project_name(std::string_view name);

// re.sub(r"[-_.]+", "_", name).lower(): the name in wheel file names and .dist-info folders.
std::string wheel_file_name_component(std::string_view name);

// PEP 508 name syntax: ASCII letters/digits, with '.', '-', '_' only between them.
bool is_valid_project_name(std::string_view name);

}  // namespace relforge::packaging
