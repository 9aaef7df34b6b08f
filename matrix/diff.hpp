#pragma once
// What changed between two expansions, matched by cell id: cells added, removed, and changed
// (with each field whose value differs, build_id included).
#include <optional>
#include <string>
#include <vector>

#include "matrix/expand.hpp"

namespace relforge::matrix {

struct FieldChange {
  std::string field;
  std::optional<std::string> before;  // nullopt: the field did not exist
  std::optional<std::string> after;
};

struct CellChange {
  std::string id;
  std::vector<FieldChange> fields;
};

struct MatrixDiff {
  std::vector<Cell> added;          // in `after` only, in its order
  std::vector<Cell> removed;        // in `before` only, in its order
  std::vector<CellChange> changed;  // in `after`'s order
  bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};

MatrixDiff diff(const Expansion& before, const Expansion& after);

// "+ id", "- id", "~ id" with "    field: old -> new" lines, then "N added, M removed, K changed".
std::string render_diff_text(const MatrixDiff& diff);
// {"added":[cells],"removed":[cells],"changed":[{"id":..,"fields":[{"field","before","after"}]}]}
std::string render_diff_json(const MatrixDiff& diff);

}  // namespace relforge::matrix
