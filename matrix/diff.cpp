#include "matrix/diff.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "matrix/emit.hpp"

namespace relforge::matrix {
namespace {

using Json = nlohmann::ordered_json;

Json typed_json(std::string_view text, ValueType type) {
  // Typed values hold their canonical TOML text, which is JSON already.
  if (type != ValueType::string) return Json::parse(text);
  return Json(std::string(text));
}

Json cell_json(const Cell& cell) {
  Json object;
  object["id"] = cell.id();
  object["build_id"] = cell.build_id();
  for (std::size_t i = 0; i < cell.size(); ++i)
    object[cell.name(i)] = typed_json(cell.value(i), cell.type(i));
  return object;
}

std::string shown(const std::optional<std::string>& value, ValueType type) {
  if (!value) return "(absent)";
  if (type != ValueType::string) return *value;
  return "'" + *value + "'";
}

Json change_value(const std::optional<std::string>& value, ValueType type) {
  return value ? typed_json(*value, type) : Json(nullptr);
}

bool same_change(const FieldChange& a, const FieldChange& b) {
  return a.field == b.field && a.before == b.before && a.after == b.after && a.before_type == b.before_type &&
         a.after_type == b.after_type;
}

// Per axis: how many of `cells` have each value, and whether they cover every value it has.
std::vector<AxisCount> by_axis(const std::vector<Cell>& cells, const Expansion& before,
                               const Expansion& after) {
  std::vector<AxisCount> out;
  if (cells.empty()) return out;
  const std::size_t axes = std::min(after.axis_count, after.names->size());
  for (std::size_t a = 0; a < axes; ++a) {
    AxisCount count;
    count.axis = (*after.names)[a];
    for (const auto& cell : cells) {
      const auto value = cell.find(count.axis);
      const std::string text = value ? std::string(*value) : std::string();
      auto it = std::find_if(count.values.begin(), count.values.end(),
                             [&](const auto& entry) { return entry.first == text; });
      if (it == count.values.end()) {
        count.values.emplace_back(text, 1);
      } else {
        ++it->second;
      }
    }
    std::set<std::string> all;
    for (const auto* expansion : {&before, &after}) {
      for (const auto& cell : expansion->cells) {
        if (auto value = cell.find(count.axis)) all.emplace(*value);
      }
    }
    count.every_value = all.size() > 1 && count.values.size() == all.size();
    out.push_back(std::move(count));
  }
  return out;
}

void render_counts(std::string& out, const std::vector<AxisCount>& counts) {
  for (const auto& count : counts) {
    out += "    " + count.axis + ": ";
    const bool uniform = std::all_of(count.values.begin(), count.values.end(), [&](const auto& entry) {
      return entry.second == count.values[0].second;
    });
    if (count.every_value && uniform) {
      out += "every value (" + std::to_string(count.values[0].second) + " each)\n";
      continue;
    }
    for (std::size_t i = 0; i < count.values.size(); ++i) {
      if (i > 0) out += ", ";
      out += (count.values[i].first.empty() ? "-" : count.values[i].first) + " (" +
             std::to_string(count.values[i].second) + ")";
    }
    out += "\n";
  }
}

Json counts_json(const std::vector<AxisCount>& counts) {
  Json out = Json::object();
  for (const auto& count : counts) {
    Json values = Json::object();
    for (const auto& [value, n] : count.values) values[value] = n;
    out[count.axis] = {{"every_value", count.every_value}, {"values", std::move(values)}};
  }
  return out;
}

constexpr std::size_t k_ids_shown = 6;

}  // namespace

Status check_diff_fields(const Expansion& before, const Expansion& after,
                         const std::vector<std::string>& fields) {
  std::vector<std::string> known{"id", "build_id"};
  for (const auto* expansion : {&after, &before}) {
    for (const auto& name : *expansion->names) {
      if (std::find(known.begin(), known.end(), name) == known.end()) known.push_back(name);
    }
  }
  return check_fields(known, fields);
}

MatrixDiff diff(const Expansion& before, const Expansion& after, const DiffOptions& options) {
  MatrixDiff result;
  const auto wanted = [&](std::string_view field) {
    return options.fields.empty() ||
           std::find(options.fields.begin(), options.fields.end(), field) != options.fields.end();
  };
  std::unordered_map<std::string_view, const Cell*> old_cells, new_cells;
  for (const auto& cell : before.cells) old_cells.emplace(cell.id(), &cell);
  for (const auto& cell : after.cells) new_cells.emplace(cell.id(), &cell);
  for (const auto& cell : after.cells) {
    auto it = old_cells.find(cell.id());
    if (it == old_cells.end()) {
      result.added.push_back(cell);
      continue;
    }
    ++result.common;
    const Cell& old = *it->second;
    CellChange change{std::string(cell.id()), {}};
    if (old.build_id() != cell.build_id() && wanted("build_id")) {
      change.fields.push_back({"build_id", std::string(old.build_id()), std::string(cell.build_id())});
    }
    // Fields in the new order, then fields only the old cell has.
    for (std::size_t i = 0; i < cell.size(); ++i) {
      if (!wanted(cell.name(i))) continue;
      std::optional<std::string> previous;
      ValueType previous_type = ValueType::string;
      for (std::size_t j = 0; j < old.size(); ++j) {
        if (old.name(j) != cell.name(i)) continue;
        previous = std::string(old.value(j));
        previous_type = old.type(j);
        break;
      }
      if (previous && *previous == cell.value(i) && previous_type == cell.type(i)) continue;
      change.fields.push_back(
          {cell.name(i), previous, std::string(cell.value(i)), previous_type, cell.type(i)});
    }
    for (std::size_t i = 0; i < old.size(); ++i) {
      if (!wanted(old.name(i)) || cell.find(old.name(i))) continue;
      change.fields.push_back({old.name(i), std::string(old.value(i)), std::nullopt, old.type(i)});
    }
    if (!change.fields.empty()) result.changed.push_back(std::move(change));
  }
  for (const auto& cell : before.cells) {
    if (new_cells.find(cell.id()) == new_cells.end()) result.removed.push_back(cell);
  }
  for (const auto& change : result.changed) {
    for (const auto& field : change.fields) {
      auto it = std::find_if(result.summary.begin(), result.summary.end(),
                             [&](const SummarizedChange& entry) { return same_change(entry.change, field); });
      if (it == result.summary.end()) {
        result.summary.push_back({field, {change.id}});
      } else {
        it->cells.push_back(change.id);
      }
    }
  }
  result.added_by_axis = by_axis(result.added, before, after);
  result.removed_by_axis = by_axis(result.removed, before, after);
  return result;
}

std::string render_diff_text(const MatrixDiff& diff) {
  std::string out;
  if (!diff.added.empty()) {
    out += "+ " + std::to_string(diff.added.size()) + (diff.added.size() == 1 ? " cell" : " cells") +
           " added, by axis value:\n";
    render_counts(out, diff.added_by_axis);
  }
  if (!diff.removed.empty()) {
    out += "- " + std::to_string(diff.removed.size()) + (diff.removed.size() == 1 ? " cell" : " cells") +
           " removed, by axis value:\n";
    render_counts(out, diff.removed_by_axis);
  }
  for (const auto& entry : diff.summary) {
    const auto& field = entry.change;
    out += "~ " + field.field + ": " + shown(field.before, field.before_type) + " -> " +
           shown(field.after, field.after_type) + " on ";
    const std::size_t n = entry.cells.size();
    if (n == diff.common && n > 1) {
      out += "all " + std::to_string(n) + " cells in both\n";
      continue;
    }
    out += std::to_string(n) + (n == 1 ? " cell: " : " cells: ");
    for (std::size_t i = 0; i < n && i < k_ids_shown; ++i) out += (i > 0 ? ", " : "") + entry.cells[i];
    if (n > k_ids_shown) out += ", ... (" + std::to_string(n - k_ids_shown) + " more; --json lists them)";
    out += "\n";
  }
  out += std::to_string(diff.added.size()) + " added, " + std::to_string(diff.removed.size()) + " removed, " +
         std::to_string(diff.changed.size()) + " changed\n";
  return out;
}

std::string render_diff_json(const MatrixDiff& diff) {
  Json body;
  body["added"] = Json::array();
  body["removed"] = Json::array();
  body["changed"] = Json::array();
  for (const auto& cell : diff.added) body["added"].push_back(cell_json(cell));
  for (const auto& cell : diff.removed) body["removed"].push_back(cell_json(cell));
  for (const auto& change : diff.changed) {
    Json fields = Json::array();
    for (const auto& field : change.fields) {
      Json entry;
      entry["field"] = field.field;
      entry["before"] = change_value(field.before, field.before_type);
      entry["after"] = change_value(field.after, field.after_type);
      fields.push_back(std::move(entry));
    }
    body["changed"].push_back({{"id", change.id}, {"fields", std::move(fields)}});
  }
  Json changes = Json::array();
  for (const auto& entry : diff.summary) {
    changes.push_back({{"field", entry.change.field},
                       {"before", change_value(entry.change.before, entry.change.before_type)},
                       {"after", change_value(entry.change.after, entry.change.after_type)},
                       {"cells", entry.cells}});
  }
  body["summary"] = {{"common", diff.common},
                     {"added", diff.added.size()},
                     {"removed", diff.removed.size()},
                     {"changed", diff.changed.size()},
                     {"added_by_axis", counts_json(diff.added_by_axis)},
                     {"removed_by_axis", counts_json(diff.removed_by_axis)},
                     {"changes", std::move(changes)}};
  body["different"] = !diff.empty();
  return body.dump(2) + "\n";
}

}  // namespace relforge::matrix
