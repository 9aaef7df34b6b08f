#pragma once
// cibuildwheel-style selection on build ids: a cell is kept when it matches any --select glob
// (all cells when none is given) and no --skip glob; --os filters on the `os` field.
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "matrix/expand.hpp"

namespace relforge::matrix {

struct Selection {
  std::vector<std::string> select;  // globs with brace expansion on build_id
  std::vector<std::string> skip;
  std::optional<std::string> os;  // glob on the `os` field
  bool empty() const { return select.empty() && skip.empty() && !os; }
};

// Removes unselected cells in place. invalid_input when --os is given but cells have no `os`
// field; nothing_selected when no cell remains.
Status apply_selection(Expansion& expansion, const Selection& selection);

}  // namespace relforge::matrix
