#pragma once
// The wheel file each cell builds: {project}-{version}[+{local_version}]-{python_tag}-{abi_tag}-
// {platform_tag}.whl, from the cell fields of those names, in canonical PEP 427 form.
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "matrix/expand.hpp"

namespace relforge::matrix {

struct WheelFile {
  std::string id;
  std::string build_id;
  std::string file_name;
};

// invalid_input when the project is unset, the version is not PEP 440, or a cell lacks a tag
// field; conflict when two cells would build the same file.
Result<std::vector<WheelFile>> wheel_names(const Expansion& expansion, std::string_view project,
                                           std::string_view version);

}  // namespace relforge::matrix
