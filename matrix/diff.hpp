#pragma once
// What changed between two expansions, matched by cell id: cells added, removed, and changed
// (with each field whose value or type differs, build_id included), and a summary that states each
// distinct field change once with the cells it affects and the added/removed cells by axis value.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "matrix/expand.hpp"

namespace relforge::matrix {

struct FieldChange {
  std::string field;
  std::optional<std::string> before;  // nullopt: the field did not exist
  std::optional<std::string> after;
  ValueType before_type = ValueType::string;
  ValueType after_type = ValueType::string;
};

struct CellChange {
  std::string id;
  std::vector<FieldChange> fields;
};

// One distinct change of a field (same before and after) and the ids of the cells it happens on.
struct SummarizedChange {
  FieldChange change;
  std::vector<std::string> cells;  // in `after`'s order
};

// How many of the added (or removed) cells have each value of one axis, in first-seen order.
struct AxisCount {
  std::string axis;
  std::vector<std::pair<std::string, std::size_t>> values;
  bool every_value = false;  // the cells span every value the axis has on either side
};

struct MatrixDiff {
  std::vector<Cell> added;          // in `after` only, in its order
  std::vector<Cell> removed;        // in `before` only, in its order
  std::vector<CellChange> changed;  // in `after`'s order
  std::size_t common = 0;           // cells in both
  std::vector<AxisCount> added_by_axis;
  std::vector<AxisCount> removed_by_axis;
  std::vector<SummarizedChange> summary;  // in the order the changes are first seen
  bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};

struct DiffOptions {
  std::vector<std::string> fields;  // empty: every field; else only these (id/build_id allowed)
};

MatrixDiff diff(const Expansion& before, const Expansion& after, const DiffOptions& options = {});

// invalid_input naming the first of `fields` that neither expansion has, with a suggestion.
Status check_diff_fields(const Expansion& before, const Expansion& after,
                         const std::vector<std::string>& fields);

// The summary: "+ N cells" / "- N cells" with their axis values, each field change once
// ("    field: 'a' -> 'b' on N cells: ids"), then "N added, M removed, K changed".
std::string render_diff_text(const MatrixDiff& diff);
// {"added":[cells],"removed":[cells],"changed":[{"id","fields":[{"field","before","after"}]}],
//  "summary":{"common","added","removed","added_by_axis","removed_by_axis","changes":[...]}};
// values keep their JSON types.
std::string render_diff_json(const MatrixDiff& diff);

}  // namespace relforge::matrix
