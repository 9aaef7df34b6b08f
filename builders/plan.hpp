#pragma once
// `relforge build --plan`: each selected cell goes to the first runner that has its Python and
// its accelerator's toolkit, or gets the exact reason none can take it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "builders/runner.hpp"
#include "matrix/cell.hpp"

namespace relforge::builders {

// What a cell asks of a runner, read from its fields (python, accel.type, accel.version).
struct CellNeeds {
  std::string python;         // "3.11"
  std::string accel_type;     // cpu, cuda, rocm, xpu
  std::string accel_version;  // "13.0"; "" for cpu
};

CellNeeds cell_needs(const matrix::Cell& cell);

// The values a cell's templates ([recipe.env], smoke checks) see: id, build_id and every field.
std::map<std::string, std::string> cell_values(const matrix::Cell& cell);

struct Assignment {
  std::string cell_id;
  CellNeeds needs;
  const Runner* runner = nullptr;  // null: `reason` says why no runner can take it
  std::string reason;
};

std::vector<Assignment> plan_cells(const std::vector<matrix::Cell>& cells,
                                   const std::vector<Runner>& runners);

// What `runner` lacks to build a cell with `needs`, with what it has instead: "nvcc 12.6 (it has
// nvcc 13.0)", "python3.12 (it has 3.11)"; "" when it can build the cell.
std::string missing_on(const Runner& runner, const CellNeeds& needs);

// The toolkit program that builds an accelerator type: nvcc, hipcc, icpx; "" for cpu.
std::string toolkit_program(const std::string& accel_type);

}  // namespace relforge::builders
