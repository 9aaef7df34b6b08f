#pragma once
// One expanded matrix cell: its stable id, its build identifier for selectors, and the values of
// the expansion's fields (axes, `axis.attr` attributes, include keys, derived fields, channel).
// A cell's text, offsets and value types live in one buffer: 100,000 cells cost one allocation
// each, not twenty. Values keep the TOML type they were written with (docs/config.md, typed values).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace relforge::matrix {

// The ordered field names every cell of one expansion shares.
using FieldNames = std::vector<std::string>;

// What a value was written as in TOML; booleans and integers keep their canonical text
// ("true"/"false", decimal) and are emitted as JSON booleans and numbers.
enum class ValueType : std::uint8_t { string, boolean, integer };
using ValueTypes = std::vector<ValueType>;

class Cell {
public:
  Cell() = default;
  // `values[i]` belongs to `(*names)[i]`; there must be one value per name. `types` (when given,
  // one per value) says how each value was written; without it every value is a string.
  Cell(std::shared_ptr<const FieldNames> names, std::string_view id, std::string_view build_id,
       const std::vector<std::string>& values, const ValueTypes* types = nullptr);

  // Stable across runs and config reorderings of unrelated cells.
  std::string_view id() const { return piece(0); }
  // The cibuildwheel-style identifier that --select/--skip match.
  std::string_view build_id() const { return piece(1); }

  std::size_t size() const { return count() < 2 ? 0 : count() - 2; }
  const std::string& name(std::size_t i) const { return (*m_names)[i]; }
  std::string_view value(std::size_t i) const { return piece(i + 2); }
  ValueType type(std::size_t i) const;
  const std::shared_ptr<const FieldNames>& names() const { return m_names; }
  // The value of a field, or of "id"/"build_id"; nullopt when the cell has no such field.
  std::optional<std::string_view> find(std::string_view name) const;
  // find()'s value, or "" when the cell has no such field.
  std::string value_or_empty(std::string_view name) const {
    const auto found = find(name);
    return found ? std::string(*found) : std::string();
  }
  std::vector<std::string> values() const;
  ValueTypes types() const;

private:
  std::uint32_t word(std::size_t i) const;  // the i-th uint32 of the header
  std::uint32_t count() const { return m_data.empty() ? 0 : word(0); }
  std::string_view piece(std::size_t i) const;
  std::size_t header() const;  // bytes before the text: count, ends, one type byte per value

  std::shared_ptr<const FieldNames> m_names;
  // [count][end of each piece, count of them][type of each value, count - 2 bytes]
  // [id, build_id, then every value, back to back]
  std::string m_data;
};

}  // namespace relforge::matrix
