#pragma once
// MatrixSpec → cells for one channel: the product of the axes (zip groups advance together),
// then exclude, then include (GitHub Actions semantics), then derived fields, ids and build ids.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "matrix/cell.hpp"
#include "matrix/config.hpp"

namespace relforge::matrix {

struct Expansion {
  std::string channel;
  std::shared_ptr<const FieldNames> names;  // shared by every cell
  std::size_t axis_count = 0;               // the first names are the axes
  std::vector<Cell> cells;
  std::size_t combinations = 0;  // the product on this channel, before exclude
  std::size_t excluded = 0;
  std::size_t included = 0;  // new combinations added by include
};

// The largest product expand() agrees to enumerate (a guard against a runaway config).
inline constexpr std::size_t k_max_combinations = 20'000'000;
// The most bytes one rendered value (a derived field, an id) may hold: a field that repeats itself
// through overrides doubles with each one.
inline constexpr std::size_t k_max_value_bytes = 64 * 1024;
// The memory the cells may take: estimated from cells × fields × value sizes before any cell is
// built, and counted again as they are built.
inline constexpr std::uint64_t k_max_matrix_bytes = std::uint64_t{256} << 20;

// Fails with invalid_input on an unknown channel, duplicate cell ids (naming both combinations) or
// a limit above (naming it and the numbers), and with nothing_selected when no cell remains.
Result<Expansion> expand(const MatrixSpec& spec, std::string_view channel);

}  // namespace relforge::matrix
