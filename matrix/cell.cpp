#include "matrix/cell.hpp"

namespace relforge::matrix {

const std::string* Cell::find(std::string_view name) const {
  for (const auto& [key, value] : fields) {
    if (key == name) return &value;
  }
  return nullptr;
}

}  // namespace relforge::matrix
