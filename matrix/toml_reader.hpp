#pragma once
// matrix reads relforge.toml with the shared strict reader (platform/toml_reader.hpp).
#include "matrix/diagnostics.hpp"
#include "platform/toml_reader.hpp"

namespace relforge::matrix {

using platform::TomlReader;

}  // namespace relforge::matrix
