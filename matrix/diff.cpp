#include "matrix/diff.hpp"

#include <unordered_map>

#include <nlohmann/json.hpp>

namespace relforge::matrix {
namespace {

nlohmann::ordered_json cell_json(const Cell& cell) {
  nlohmann::ordered_json object;
  object["id"] = cell.id();
  object["build_id"] = cell.build_id();
  for (std::size_t i = 0; i < cell.size(); ++i) object[cell.name(i)] = cell.value(i);
  return object;
}

std::string shown(const std::optional<std::string>& value) {
  if (!value) return "(absent)";
  return "'" + *value + "'";
}

}  // namespace

MatrixDiff diff(const Expansion& before, const Expansion& after) {
  MatrixDiff result;
  std::unordered_map<std::string_view, const Cell*> old_cells, new_cells;
  for (const auto& cell : before.cells) old_cells.emplace(cell.id(), &cell);
  for (const auto& cell : after.cells) new_cells.emplace(cell.id(), &cell);
  for (const auto& cell : after.cells) {
    auto it = old_cells.find(cell.id());
    if (it == old_cells.end()) {
      result.added.push_back(cell);
      continue;
    }
    const Cell& old = *it->second;
    CellChange change{std::string(cell.id()), {}};
    if (old.build_id() != cell.build_id()) {
      change.fields.push_back({"build_id", std::string(old.build_id()), std::string(cell.build_id())});
    }
    // Fields in the new order, then fields only the old cell has.
    for (std::size_t i = 0; i < cell.size(); ++i) {
      const auto previous = old.find(cell.name(i));
      if (previous && *previous == cell.value(i)) continue;
      change.fields.push_back({cell.name(i), previous ? std::optional<std::string>(*previous) : std::nullopt,
                               std::string(cell.value(i))});
    }
    for (std::size_t i = 0; i < old.size(); ++i) {
      if (!cell.find(old.name(i)))
        change.fields.push_back({old.name(i), std::string(old.value(i)), std::nullopt});
    }
    if (!change.fields.empty()) result.changed.push_back(std::move(change));
  }
  for (const auto& cell : before.cells) {
    if (new_cells.find(cell.id()) == new_cells.end()) result.removed.push_back(cell);
  }
  return result;
}

std::string render_diff_text(const MatrixDiff& diff) {
  std::string out;
  for (const auto& cell : diff.added) out += "+ " + std::string(cell.id()) + "\n";
  for (const auto& cell : diff.removed) out += "- " + std::string(cell.id()) + "\n";
  for (const auto& change : diff.changed) {
    out += "~ " + change.id + "\n";
    for (const auto& field : change.fields) {
      out += "    " + field.field + ": " + shown(field.before) + " -> " + shown(field.after) + "\n";
    }
  }
  out += std::to_string(diff.added.size()) + " added, " + std::to_string(diff.removed.size()) + " removed, " +
         std::to_string(diff.changed.size()) + " changed\n";
  return out;
}

std::string render_diff_json(const MatrixDiff& diff) {
  nlohmann::ordered_json body;
  body["added"] = nlohmann::ordered_json::array();
  body["removed"] = nlohmann::ordered_json::array();
  body["changed"] = nlohmann::ordered_json::array();
  for (const auto& cell : diff.added) body["added"].push_back(cell_json(cell));
  for (const auto& cell : diff.removed) body["removed"].push_back(cell_json(cell));
  for (const auto& change : diff.changed) {
    nlohmann::ordered_json fields = nlohmann::ordered_json::array();
    for (const auto& field : change.fields) {
      nlohmann::ordered_json entry;
      entry["field"] = field.field;
      entry["before"] =
          field.before ? nlohmann::ordered_json(*field.before) : nlohmann::ordered_json(nullptr);
      entry["after"] = field.after ? nlohmann::ordered_json(*field.after) : nlohmann::ordered_json(nullptr);
      fields.push_back(std::move(entry));
    }
    body["changed"].push_back({{"id", change.id}, {"fields", std::move(fields)}});
  }
  return body.dump(2) + "\n";
}

}  // namespace relforge::matrix
