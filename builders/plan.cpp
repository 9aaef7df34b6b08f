#include "builders/plan.hpp"

#include <set>

#include "core/text.hpp"

namespace relforge::builders {
namespace {

// Why `runner` cannot build a cell with `needs`; "" when it can.
std::string refusal(const Runner& runner, const CellNeeds& needs) {
  if (runner.python(needs.python) == nullptr) return "python" + needs.python;
  if (needs.accel_type == "cpu" || needs.accel_type.empty()) return "";
  const auto* kit = runner.toolkit(needs.accel_type);
  if (kit == nullptr) return toolkit_program(needs.accel_type);
  if (!needs.accel_version.empty() && !kit->version.empty() && kit->version != needs.accel_version)
    return toolkit_program(needs.accel_type) + " " + needs.accel_version;
  return "";
}

}  // namespace

std::string missing_on(const Runner& runner, const CellNeeds& needs) {
  const auto missing = refusal(runner, needs);
  if (missing.empty()) return "";
  std::vector<std::string> has;
  if (missing.starts_with("python")) {
    for (const auto& python : runner.pythons) has.push_back(python.version);
  } else if (const auto* kit = runner.toolkit(needs.accel_type)) {
    has.push_back(toolkit_program(kit->kind) + (kit->version.empty() ? "" : " " + kit->version));
  }
  return missing + " (it has " + (has.empty() ? std::string("none") : core::join(has, ", ")) + ")";
}

std::string toolkit_program(const std::string& accel_type) {
  if (accel_type == "cuda") return "nvcc";
  if (accel_type == "rocm") return "hipcc";
  if (accel_type == "xpu") return "icpx";
  return accel_type.empty() || accel_type == "cpu" ? "" : accel_type + " toolkit";
}

std::map<std::string, std::string> cell_values(const matrix::Cell& cell) {
  std::map<std::string, std::string> values{{"id", std::string(cell.id())},
                                            {"build_id", std::string(cell.build_id())}};
  for (std::size_t i = 0; i < cell.size(); ++i) values[cell.name(i)] = std::string(cell.value(i));
  return values;
}

CellNeeds cell_needs(const matrix::Cell& cell) {
  CellNeeds needs{cell.value_or_empty("python"), cell.value_or_empty("accel.type"),
                  cell.value_or_empty("accel.version")};
  if (needs.accel_type.empty()) needs.accel_type = "cpu";
  return needs;
}

std::vector<Assignment> plan_cells(const std::vector<matrix::Cell>& cells,
                                   const std::vector<Runner>& runners) {
  std::vector<Assignment> out;
  for (const auto& cell : cells) {
    Assignment assignment{std::string(cell.id()), cell_needs(cell), nullptr, ""};
    const auto& needs = assignment.needs;
    for (const auto& runner : runners) {
      if (refusal(runner, needs).empty()) {
        assignment.runner = &runner;
        break;
      }
    }
    if (assignment.runner == nullptr) {
      // Name what is missing and what there is, so the fix (add a runner, install a toolkit) is plain.
      const bool cpu = needs.accel_type == "cpu";
      const std::string kit = cpu ? ""
                                  : toolkit_program(needs.accel_type) +
                                        (needs.accel_version.empty() ? "" : " " + needs.accel_version);
      std::set<std::string> versions, kits;
      std::vector<std::string> with_python, with_kit;
      for (const auto& runner : runners) {
        for (const auto& python : runner.pythons) versions.insert(python.version);
        if (runner.python(needs.python) != nullptr) with_python.push_back(runner.name);
        if (cpu) continue;
        if (const auto* found = runner.toolkit(needs.accel_type)) {
          kits.insert(toolkit_program(needs.accel_type) +
                      (found->version.empty() ? "" : " " + found->version));
          if (refusal(runner, {runner.pythons.empty() ? needs.python : runner.pythons.front().version,
                               needs.accel_type, needs.accel_version})
                  .empty())
            with_kit.push_back(runner.name);
        }
      }
      auto listed = [](const auto& items) {
        return items.empty() ? std::string("none") : core::join({items.begin(), items.end()}, ", ");
      };
      if (with_python.empty()) {
        assignment.reason = "no runner has python" + needs.python + " — available: " + listed(versions);
      } else if (with_kit.empty()) {
        assignment.reason = "no runner has " + kit + " — available: " + listed(kits);
      } else {
        assignment.reason = "no runner has both python" + needs.python + " and " + kit + " — python" +
                            needs.python + ": " + listed(with_python) + "; " + kit + ": " + listed(with_kit);
      }
    }
    out.push_back(std::move(assignment));
  }
  return out;
}

}  // namespace relforge::builders
