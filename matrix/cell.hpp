#pragma once
// One expanded matrix cell: an ordered list of named fields (axes, value attributes, derived
// fields) plus its stable id and its build identifier for selectors.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace relforge::matrix {

struct Cell {
  std::string id;        // stable across runs and config reorderings of unrelated cells
  std::string build_id;  // cibuildwheel-style identifier that --select/--skip match
  std::vector<std::pair<std::string, std::string>> fields;

  const std::string* find(std::string_view name) const;
};

}  // namespace relforge::matrix
